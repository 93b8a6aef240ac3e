import { describeBackendContracts } from './suite/all.js';
import { embeddedContractStorage } from './suite/backends.js';

// Every store's contract but the requests', which are in embedded.test.ts.
const { makeBackend, makeStorage } = embeddedContractStorage();
describeBackendContracts(makeBackend, makeStorage, 'stores');
