import { afterAll, beforeAll } from 'vitest';
import { Api } from './api-client.js';
import { createProject, startFerry, type FerryProcess } from './ferry-process.js';

export interface FerryFixture {
  ferry: FerryProcess;
  api: Api;
  projectId: string;
  apiKey: string;
  /** Creates another project on the same server and returns a client for it. */
  newProject(opts?: { monthlyAllowance?: number; retentionDays?: number }): Promise<{ api: Api; projectId: string; apiKey: string }>;
}

/** One real `ferry serve` process for the enclosing test file, with one project ready to use. */
export function useFerry(opts: { env?: Record<string, string>; monthlyAllowance?: number } = {}): FerryFixture {
  const fixture = {} as FerryFixture;
  beforeAll(async () => {
    // Acceptance tests look at requests as accepted, so by default no delivery moves them on.
    const ferry = await startFerry({ env: { FERRY_AUTH_CACHE_MS: '0', FERRY_ROLES: 'api', ...opts.env } });
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
    await fixture.ferry?.stop();
  });
  return fixture;
}

export const DEST = 'https://example.com/hook';
