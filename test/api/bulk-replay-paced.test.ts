import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, eventually } from '../support/api-client.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { createProject, newDataDir, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { busiestWindow } from '../support/arrivals.js';

/**
 * A bulk replay of 2,000 failed requests through a flow key limited to 100/s: the replays reach the destination at
 * the key's pace, the server is killed with SIGKILL while the action is still creating them, and once it is back
 * every original has been replayed exactly once. The destination answers 400, so the originals fail after one
 * attempt each (fast: the limit is set only once they have), and so do the replays (nothing retries).
 */

const ORIGINALS = 2_000;
const RATE = 100;

describe('a bulk replay paced by its flow key, across kill -9', () => {
  let dest: Destination;
  let ferry: FerryProcess | undefined;
  const dataDir = newDataDir();
  // Batches of 100 every 0.6 s create the replays at about 1.7 times the key's rate: the action is still running
  // well after the first replays arrive, so the kill lands in the middle of it.
  const env = () => ({
    FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
    FERRY_DELIVERY_CA_FILE: dest.certFile,
    FERRY_BULK_BATCH_SIZE: '100',
    FERRY_BULK_PAUSE_MS: '600',
  });

  beforeAll(async () => {
    dest = await startDestination();
    dest.on('/paced', replies.status(400, {}, 'refused'));
  });
  afterAll(async () => {
    await ferry?.stop();
    await dest?.close();
  });

  it('reaches the destination at the key\'s pace and ends with exactly one replay per original', async () => {
    ferry = await startFerry({ dataDir, env: env() });
    const { apiKey } = await createProject(dataDir);
    let api = new Api(ferry.baseUrl, apiKey);
    const originals = new Set<string>();
    for (let i = 0; i < ORIGINALS; i += 100) {
      const requests = Array.from({ length: 100 }, () => ({ url: `${dest.url}/paced`, flow_keys: ['paced'] }));
      const res = await api.call<{ requests: Array<{ id: string }> }>('POST', '/requests/batch', { json: { requests }, headers: { 'idempotency-key': `originals-${i}` } });
      expect(res.status).toBe(202);
      for (const r of res.body.data.requests) originals.add(r.id);
    }
    await dest.waitForRequests('/paced', ORIGINALS, 120_000);
    const filter = { flow_key: 'paced', status: 'failed' };
    await eventually(async () => {
      const dry = await api.call<{ matched: number }>('POST', '/bulk-actions', { json: { action: 'replay', filter, dry_run: true } });
      return dry.body.data.matched === ORIGINALS ? true : undefined;
    }, 30_000);
    expect((await api.call('PUT', '/flow-keys/paced', { json: { rate: { limit: RATE, period: '1s' } } })).status).toBe(200);

    const started = await api.call<{ id: string; matched: number }>('POST', '/bulk-actions', {
      json: { action: 'replay', filter },
      headers: { 'idempotency-key': 'replay-all' },
    });
    expect(started.status).toBe(202);
    expect(started.body.data.matched).toBe(ORIGINALS);
    const id = started.body.data.id;

    // Halfway through creating the replays.
    await eventually(async () => {
      const a = (await api.call<{ done: number }>('GET', `/bulk-actions/${id}`)).body.data;
      return a.done >= ORIGINALS / 2 ? true : undefined;
      // The runner lengthens its pauses while its process runs late (a busy machine): give it time.
    }, 180_000);
    await ferry.kill();
    ferry = await startFerry({ dataDir, env: env() });
    api = new Api(ferry.baseUrl, apiKey);

    const action = await eventually(async () => {
      const a = (await api.call<{ state: string; done: number; matched: number }>('GET', `/bulk-actions/${id}`)).body.data;
      return a.state === 'completed' ? a : undefined;
    }, 300_000);
    expect(action).toMatchObject({ matched: ORIGINALS, done: ORIGINALS });

    // Every replay delivered through the key (an attempt in flight at the kill may arrive twice: at least once).
    const replayIds = (): Set<string> =>
      new Set(dest.requestsTo('/paced').map((r) => r.headers['service-request-id'] as string).filter((rid) => !originals.has(rid)));
    await eventually(async () => (replayIds().size >= ORIGINALS ? true : undefined), 150_000);
    const firstArrival = new Map<string, number>();
    for (const r of dest.requestsTo('/paced')) {
      const rid = r.headers['service-request-id'] as string;
      if (!originals.has(rid) && !firstArrival.has(rid)) firstArrival.set(rid, r.receivedAt);
    }
    const replayArrivals = [...firstArrival.values()];
    expect(replayArrivals).toHaveLength(ORIGINALS);
    const byOriginal = new Map<string, number>();
    let cursor: string | null = null;
    do {
      const page: { body: { data: { items: Array<{ replayed_from_request_id: string }>; next_cursor: string | null } } } = await api.call(
        'GET',
        `/requests?source=replay&flow_key=paced&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const r of page.body.data.items) byOriginal.set(r.replayed_from_request_id, (byOriginal.get(r.replayed_from_request_id) ?? 0) + 1);
      cursor = page.body.data.next_cursor;
    } while (cursor !== null);
    expect(byOriginal.size).toBe(ORIGINALS);
    expect([...byOriginal.values()].every((n) => n === 1)).toBe(true);

    // The key's pace. Starts keep to the rate and burst: at most burst + rate × W in any W seconds. What is
    // measured here is arrivals, which lag their starts by a varying few hundred milliseconds on a busy machine, so
    // starts made at the edge of one window can land in the next: over two-second windows that jitter is a small
    // part of what is counted, and a quarter of a second of the rate covers it. The 2,000 also spread over at least
    // the time the rate needs for them, with room for timer slack.
    // A process started after the kill knows nothing of the starts the killed one made in its last second, so its
    // bucket may give one more burst across the restart.
    const burst = RATE;
    expect(busiestWindow(replayArrivals, 2_000)).toBeLessThanOrEqual(2 * burst + 2 * RATE + RATE / 4);
    const span = Math.max(...replayArrivals) - Math.min(...replayArrivals);
    expect(span).toBeGreaterThanOrEqual(((ORIGINALS - RATE) / RATE) * 1_000 * 0.9);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(replayIds().size).toBe(ORIGINALS);
  }, 600_000);
});
