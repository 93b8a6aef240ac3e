import { afterAll } from 'vitest';
import { dropDeployments } from './deployment.js';

// Runs in every test file of the Cassandra project: the file's deployments go when the file is done.
afterAll(async () => {
  await dropDeployments();
}, 120_000);
