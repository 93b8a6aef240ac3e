import { describeBackendContracts } from './suite/all.js';
import { cassandraContractStorage } from './suite/backends.js';

// Every store's contract but the requests', which are in cassandra.test.ts.
const { makeBackend, makeStorage } = cassandraContractStorage('ferry_cs');
describeBackendContracts(makeBackend, makeStorage, 'stores');
