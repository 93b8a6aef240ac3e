import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, eventually } from '../support/api-client.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { TEST_BACKEND } from '../support/deployment.js';
import { createProject, newDataDir, startFerry } from '../support/ferry-process.js';

// Attempts run on the main thread and on a delivery thread: both must keep every promise here. Which one sends is
// the transport's concern, the same over either backend, so Cassandra runs the default of this machine (a thread)
// only: with both modes this file was the suite's slowest there (178 s, four processes started per mode).
const THREAD_MODES = TEST_BACKEND === 'embedded' ? ['0', '1'] : ['1'];

describe.each(THREAD_MODES)('delivery across crashes and shutdowns (FERRY_DELIVERY_THREADS=%s)', (threads) => {
  let dest: Destination;
  beforeAll(async () => {
    dest = await startDestination();
  });
  afterAll(async () => {
    await dest?.close();
  });

  const env = () => ({
    FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
    FERRY_DELIVERY_CA_FILE: dest.certFile,
    FERRY_RETRY_BASE_MS: '20',
    FERRY_DELIVERY_THREADS: threads,
  });

  it('delivers every accepted request after kill -9 at a random moment, and leaves none stuck', async () => {
    dest.on('/crash', replies.delayedHeaders(20, 200));
    const dataDir = newDataDir();
    const first = await startFerry({ dataDir, env: env() });
    const { apiKey } = await createProject(dataDir);
    const api = new Api(first.baseUrl, apiKey);
    const accepted: string[] = [];
    let stop = false;
    const senders = Array.from({ length: 8 }, async () => {
      while (!stop) {
        try {
          const res = await api.send({ url: `${dest.url}/crash`, retry: '3' }, 'payload');
          if (res.status === 202) accepted.push((res.body.data as { id: string }).id);
        } catch {
          return;
        }
      }
    });
    await eventually(async () => (dest.requestsTo('/crash').length >= 50 && accepted.length >= 150 ? true : undefined), 20_000);
    await first.kill();
    stop = true;
    await Promise.all(senders);

    const second = await startFerry({ dataDir, env: env() });
    try {
      const again = new Api(second.baseUrl, apiKey);
      for (const id of accepted) {
        await eventually(async () => {
          const res = await again.call<{ status: string }>('GET', `/requests/${id}`);
          return res.body.data.status === 'succeeded' ? true : undefined;
        }, 20_000);
      }
      const delivered = new Set(dest.requestsTo('/crash').map((r) => r.headers['service-request-id']));
      expect(accepted.filter((id) => !delivered.has(id))).toEqual([]);
      const stuck = await again.call<{ items: unknown[] }>('GET', '/requests?status=delivering');
      expect(stuck.body.data.items).toEqual([]);
    } finally {
      await second.stop();
    }
  });

  it('drains on SIGTERM: an attempt in flight finishes and is recorded', async () => {
    dest.on('/drain', replies.delayedHeaders(700, 200));
    const dataDir = newDataDir();
    const ferry = await startFerry({ dataDir, env: env() });
    const { apiKey } = await createProject(dataDir);
    const res = await new Api(ferry.baseUrl, apiKey).send({ url: `${dest.url}/drain` });
    const id = (res.body.data as { id: string }).id;
    await dest.waitForRequests('/drain', 1);
    expect(await ferry.stop()).toBe(0);

    const after = await startFerry({ dataDir, env: { ...env(), FERRY_ROLES: 'api' } });
    try {
      const d = await new Api(after.baseUrl, apiKey).call<{ status: string; attempts: unknown[] }>('GET', `/requests/${id}`);
      expect(d.body.data.status).toBe('succeeded');
      expect(d.body.data.attempts).toHaveLength(1);
    } finally {
      await after.stop();
    }
  });
});
