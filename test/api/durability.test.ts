import { describe, expect, it } from 'vitest';
import { Api, eventually } from '../support/api-client.js';
import { createProject, newDataDir, startFerry } from '../support/ferry-process.js';
import { DEST } from '../support/fixture.js';

describe('durability', () => {
  it('loses no acknowledged request when killed with SIGKILL right after the 202s', async () => {
    const dataDir = newDataDir();
    const first = await startFerry({ dataDir, env: { FERRY_ROLES: 'api' } });
    const { apiKey } = await createProject(dataDir);
    const api = new Api(first.baseUrl, apiKey);
    const acknowledged: string[] = [];
    let stop = false;
    const senders = Array.from({ length: 16 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await api.send({ url: `${DEST}/${w}/${i}` }, `body-${w}-${i}`);
          if (res.status === 202) acknowledged.push((res.body.data as { id: string }).id);
        } catch {
          return; // the connection died with the process
        }
      }
    });
    await eventually(async () => (acknowledged.length >= 300 ? true : undefined), 20_000);
    await first.kill();
    stop = true;
    await Promise.all(senders);

    const second = await startFerry({ dataDir, env: { FERRY_ROLES: 'api' } });
    try {
      const again = new Api(second.baseUrl, apiKey);
      const missing: string[] = [];
      for (const id of acknowledged) {
        if ((await again.call('GET', `/requests/${id}`)).status !== 200) missing.push(id);
      }
      expect(missing).toEqual([]);
    } finally {
      await second.stop();
    }
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const ferry = await startFerry();
    expect(await ferry.stop()).toBe(0);
  });
});
