import { describeBackendContracts } from './suite/all.js';
import { cassandraContractStorage } from './suite/backends.js';

// The requests' contracts, with each claim stored as it is made; those of claims and of the changes made through
// them run again with claims held in the claiming process, as a deployment runs them by default
// (`CLAIM_STORED_AFTER_MS`), in cassandra-claims-held (a file of its own, so the two run side by side). What only
// held claims do is tested in cassandra-held-claims. The other stores' contracts are in cassandra-stores.test.ts.
const { makeBackend, makeStorage } = cassandraContractStorage('ferry_ct');
describeBackendContracts(makeBackend, makeStorage, 'requests');
