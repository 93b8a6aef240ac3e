import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, eventually } from '../support/api-client.js';
import { TEST_BACKEND } from '../support/deployment.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';

/**
 * A second `serve` tried on a directory that is served: how it ended, or the running process when it started.
 * A started one is stopped by the caller, after it had its chance to do harm.
 */
async function secondServe(dataDir: string, env: Record<string, string> = {}): Promise<{ refusal: string } | { started: FerryProcess }> {
  try {
    return { started: await startFerry({ dataDir, env }) };
  } catch (err) {
    return { refusal: (err as Error).message };
  }
}

// One server per embedded data directory; distributed processes share their storage by design.
describe.runIf(TEST_BACKEND === 'embedded')('one server per data directory', () => {
  it('a second serve exits at once, naming the directory and the process that holds it', async () => {
    const first = await startFerry();
    try {
      const second = await secondServe(first.dataDir);
      if ('started' in second) await second.started.stop();
      expect(second).toHaveProperty('refusal');
      const refusal = (second as { refusal: string }).refusal;
      expect(refusal).toMatch(/exited with 1 before listening/);
      expect(refusal).toContain(`data directory ${first.dataDir} is already served by process ${first.child.pid} on `);
      expect(refusal).toMatch(/running since \d{4}-\d\d-\d\dT/);
      // The holder is unharmed.
      expect((await fetch(`${first.baseUrl}/requests`)).status).toBe(401);
    } finally {
      await first.stop();
    }
  });

  it('after the holder is killed with SIGKILL, a new server starts on the directory at once', async () => {
    const first = await startFerry();
    await first.kill();
    const next = await startFerry({ dataDir: first.dataDir });
    expect(await next.stop()).toBe(0);
    // And so does one after a clean stop.
    const third = await startFerry({ dataDir: first.dataDir });
    expect(await third.stop()).toBe(0);
  });

  it('administration commands work beside the running server', async () => {
    const ferry = await startFerry({ env: { FERRY_AUTH_CACHE_MS: '0' } });
    try {
      const { apiKey } = await createProject(ferry.dataDir);
      const listed = await new Api(ferry.baseUrl, apiKey).call('GET', '/requests');
      expect(listed.status).toBe(200);
    } finally {
      await ferry.stop();
    }
  });

  describe('with an attempt in flight', () => {
    let dest: Destination;
    beforeAll(async () => {
      dest = await startDestination();
    });
    afterAll(async () => {
      await dest?.close();
    });

    it('a second serve on the directory cannot deliver it again: the destination sees it once', async () => {
      const env = { FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: dest.certFile, FERRY_AUTH_CACHE_MS: '0' };
      dest.on('/slow', replies.delayedHeaders(8_000));
      const first = await startFerry({ env });
      let second: Awaited<ReturnType<typeof secondServe>> | undefined;
      try {
        const { apiKey } = await createProject(first.dataDir);
        const api = new Api(first.baseUrl, apiKey);
        const sent = await api.send({ url: `${dest.url}/slow`, retry: '1' });
        expect(sent.status).toBe(202);
        const id = (sent.body.data as { id: string }).id;
        await dest.waitForRequests('/slow', 1);

        second = await secondServe(first.dataDir, env);
        const done = await eventually(async () => {
          const d = (await api.call<{ status: string; attempts: unknown[] }>('GET', `/requests/${id}`)).body.data;
          return d.status === 'succeeded' ? d : undefined;
        }, 30_000);
        // A second server, had it started, would have taken the attempt in flight for lost and sent it again.
        expect(dest.requestsTo('/slow')).toHaveLength(1);
        expect(done.attempts).toHaveLength(1);
        expect(second).toHaveProperty('refusal');
      } finally {
        if (second !== undefined && 'started' in second) await second.started.stop();
        await first.stop();
      }
    }, 60_000);
  });
});
