import type { TestProject } from 'vitest/node';
import { dropDeployments, type TestBackend } from './deployment.js';
import { startFerry, type FerryProcess } from './ferry-process.js';

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
  const backend = backendOf(project);
  const ferry = await (startingTogether(project).get(project.name) ?? startFerry({ env: { ...SHARED_FERRY_ENV }, backend }));
  project.provide('sharedFerry', { baseUrl: ferry.baseUrl, grpcAddress: ferry.grpcAddress, dataDir: ferry.dataDir });
  return async () => {
    await ferry.stop();
    if (backend === 'cassandra') await dropDeployments([ferry.dataDir]);
  };
}

function backendOf(project: TestProject): TestBackend {
  return project.config.env?.FERRY_TEST_BACKEND === 'cassandra' ? 'cassandra' : 'embedded';
}

/** Where the first set-up of a run leaves the servers it started for every project (this module loads once per project). */
const STARTING = Symbol.for('ferry.test.sharedFerries');

/**
 * The shared servers of every project of this run that has test files here, started side by side by the first
 * project's set-up: vitest runs the projects' set-ups one after the other, and a distributed server takes seconds to
 * start (a keyspace emptied, a topic, a consumer group) while nothing else runs. Which files the run has comes
 * from vitest's state, an experimental interface: without it, each set-up starts its own server as it comes.
 */
function startingTogether(project: TestProject): Map<string, Promise<FerryProcess>> {
  const shared = globalThis as { [STARTING]?: Map<string, Promise<FerryProcess>> };
  if (shared[STARTING]) return shared[STARTING];
  const starting = new Map<string, Promise<FerryProcess>>();
  shared[STARTING] = starting;
  let paths: string[];
  try {
    paths = project.vitest.state.getPaths();
  } catch {
    return starting;
  }
  for (const p of project.vitest.projects) {
    const usesThis = [p.config.globalSetup].flat().some((file) => file.endsWith('/shared-ferry.setup.ts'));
    if (!usesThis || !paths.some((path) => p.matchesTestGlob(path))) continue;
    const started = startFerry({ env: { ...SHARED_FERRY_ENV }, backend: backendOf(p) });
    // Awaited by that project's set-up; should vitest stop before it runs, the process must not outlive the run.
    started.then((ferry) => process.once('exit', () => ferry.child.kill('SIGKILL')), () => undefined);
    starting.set(p.name, started);
  }
  return starting;
}
