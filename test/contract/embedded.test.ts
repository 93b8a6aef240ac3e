import { describeBackendContracts } from './suite/all.js';
import { embeddedContractStorage } from './suite/backends.js';

// The requests' contracts; the other stores' are in embedded-stores.test.ts.
const { makeBackend, makeStorage } = embeddedContractStorage();
describeBackendContracts(makeBackend, makeStorage, 'requests');
