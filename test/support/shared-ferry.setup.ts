import type { TestProject } from 'vitest/node';
import { dropDeployments, type TestBackend } from './deployment.js';
import { startFerry } from './ferry-process.js';

/** Where the test files of a project find the server they share (see `useFerry`). */
export interface SharedFerry {
  readonly baseUrl: string;
  readonly grpcAddress: string;
  readonly dataDir: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    sharedFerry: SharedFerry;
  }
}

/**
 * The environment of the shared server: the API only (acceptance tests look at requests as accepted, so no
 * delivery moves them on) and no authentication cache (a key revoked by one test is refused at once).
 */
export const SHARED_FERRY_ENV: Readonly<Record<string, string>> = { FERRY_AUTH_CACHE_MS: '0', FERRY_ROLES: 'api' };

/**
 * One `ferry serve` for every test file of a project that needs a server in the default configuration: each file
 * isolates itself by creating projects of its own, so starting a process (and, on Cassandra, migrating a keyspace
 * and creating a topic) once per file bought nothing but time.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const backend: TestBackend = project.config.env?.FERRY_TEST_BACKEND === 'cassandra' ? 'cassandra' : 'embedded';
  const ferry = await startFerry({ env: { ...SHARED_FERRY_ENV }, backend });
  project.provide('sharedFerry', { baseUrl: ferry.baseUrl, grpcAddress: ferry.grpcAddress, dataDir: ferry.dataDir });
  return async () => {
    await ferry.stop();
    if (backend === 'cassandra') await dropDeployments([ferry.dataDir]);
  };
}
