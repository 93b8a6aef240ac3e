import { afterAll, beforeAll, inject } from 'vitest';
import { Api } from './api-client.js';
import { createProject, startFerry, type FerryProcess } from './ferry-process.js';
import { SHARED_FERRY_ENV } from './shared-ferry.setup.js';

/** What a test sees of the server it talks to: where it listens, and its deployment's data directory. */
export type FerryServer = Pick<FerryProcess, 'baseUrl' | 'grpcAddress' | 'dataDir'>;

export interface FerryFixture<Server extends FerryServer = FerryServer> {
  ferry: Server;
  api: Api;
  projectId: string;
  apiKey: string;
  /** Creates another project on the same server and returns a client for it. */
  newProject(opts?: { monthlyAllowance?: number; retentionDays?: number }): Promise<{ api: Api; projectId: string; apiKey: string }>;
}

/**
 * A server for the enclosing test file, with one project of its own ready to use. Without `env` it is the server
 * every file of the project shares (`shared-ferry.setup.ts`: the API only, no authentication cache), so the file
 * must keep to its own projects and not look at what is server-wide (logs, metrics, process state). With `env` it
 * is a `ferry serve` process of the file's own, stopped after it.
 */
export function useFerry(opts: { env: Record<string, string>; monthlyAllowance?: number }): FerryFixture<FerryProcess>;
export function useFerry(opts?: { monthlyAllowance?: number }): FerryFixture;
export function useFerry(opts: { env?: Record<string, string>; monthlyAllowance?: number } = {}): FerryFixture<FerryProcess> | FerryFixture {
  const fixture = {} as FerryFixture<FerryProcess>;
  let own: FerryProcess | undefined;
  beforeAll(async () => {
    const ferry: FerryServer = opts.env ? (own = await startFerry({ env: { ...SHARED_FERRY_ENV, ...opts.env } })) : inject('sharedFerry');
    const { projectId, apiKey } = await createProject(ferry.dataDir, { monthlyAllowance: opts.monthlyAllowance });
    Object.assign(fixture, {
      ferry,
      api: new Api(ferry.baseUrl, apiKey),
      projectId,
      apiKey,
      async newProject(o: { monthlyAllowance?: number; retentionDays?: number } = {}) {
        const p = await createProject(ferry.dataDir, o);
        return { ...p, api: new Api(ferry.baseUrl, p.apiKey) };
      },
    });
  });
  afterAll(async () => {
    await own?.stop();
  });
  return fixture;
}

export const DEST = 'https://example.com/hook';
