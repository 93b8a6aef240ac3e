import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, eventually } from '../support/api-client.js';
import type { BudgetObject } from '../support/budget-client.js';
import { TEST_BACKEND } from '../support/deployment.js';
import { replies, startDestination, type Destination, type Exchange } from '../support/destination.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { sampleOf } from '../support/metrics.js';
import { busiestWindow } from '../support/arrivals.js';

/**
 * Flow control with real deliveries: one delivering process (two for the distributed case) and a loopback HTTPS
 * destination that records when each call arrived. The cases run side by side, each on keys and paths of its own:
 * most of their time is waiting on rates.
 */

interface Detail {
  status: string;
  flow_keys: string[];
  waiting_for: { kind: string; name: string; reason: string } | null;
}

const ENV = { FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_RETRY_BASE_MS: '200', FERRY_RETRY_CAP_MS: '400' };

// Arrival windows (`busiestWindow`): budgets space the starts of attempts; arrivals at the destination come a moment
// later, each after its own, so two starts exactly a window apart may arrive within it: the checks below allow one
// more than rate + burst for that, and a quarter of a second of the rate (`JITTER`) for arrivals that a busy
// machine (four test files at once, a distributed process beside Cassandra) holds up and lets go together. The
// budget arithmetic itself is held to the exact bound in test/unit/flow-budgets.test.ts.
const JITTER = (ratePerSecond: number) => Math.ceil(ratePerSecond / 4);

async function accept(api: Api, items: ReadonlyArray<Record<string, unknown>>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < items.length; i += 100) {
    const res = await api.call<{ requests: Array<{ id: string }> }>('POST', '/requests/batch', {
      json: { requests: items.slice(i, i + 100) },
      headers: { 'idempotency-key': `flow-${Date.now()}-${Math.random()}` },
    });
    expect(res.status, JSON.stringify(res.body.error)).toBe(202);
    ids.push(...res.body.data.requests.map((r) => r.id));
  }
  return ids;
}

async function put(api: Api, path: string, body: unknown): Promise<BudgetObject> {
  const res = await api.call<BudgetObject>('PUT', path, { json: body });
  expect(res.status, JSON.stringify(res.body.error)).toBe(200);
  return res.body.data;
}

async function read(api: Api, path: string): Promise<BudgetObject> {
  return (await api.call<BudgetObject>('GET', path)).body.data;
}

/** Answers after `ms`, counting how many calls are open at once. */
function slow(ms: number): { handler: (e: Exchange) => Promise<void>; most: () => number } {
  let open = 0;
  let most = 0;
  return {
    most: () => most,
    handler: async ({ res }) => {
      most = Math.max(most, ++open);
      await sleep(ms);
      open--;
      res.writeHead(200).end();
    },
  };
}

describe('flow control, delivered', () => {
  let dest: Destination;
  let ferry: FerryProcess;
  let api: Api;
  let url: (path: string) => string;

  beforeAll(async () => {
    dest = await startDestination();
    ferry = await startFerry({ env: { ...ENV, FERRY_DELIVERY_CA_FILE: dest.certFile } });
    api = new Api(ferry.baseUrl, (await createProject(ferry.dataDir)).apiKey);
    url = (path) => `${dest.url}${path}`;
  });
  afterAll(async () => {
    await ferry?.stop();
    await dest?.close();
  });

  it.concurrent('a key at 5/s over 20 s: never more than rate + burst in a second, on average within 5 % of its rate', async () => {
    await put(api, '/flow-keys/five', { rate: { limit: 5, period: '1s' } });
    await accept(api, Array.from({ length: 110 }, () => ({ url: url('/five'), flow_keys: ['five'] })));
    const arrived = await dest.waitForRequests('/five', 110, 40_000);
    const times = arrived.map((r) => r.receivedAt).sort((a, b) => a - b);
    expect(busiestWindow(times, 1_000)).toBeLessThanOrEqual(10 + 1 + JITTER(5));
    // After the burst of 5, one every 200 ms: 105 more over 21 s.
    const steady = (times.at(-1)! - times[5]!) / 1000;
    expect(104 / steady).toBeGreaterThanOrEqual(5 * 0.95);
    expect(104 / steady).toBeLessThanOrEqual(5 * 1.05);
  });

  it.concurrent('concurrency 3 never sees a fourth call open at the destination', async () => {
    const s = slow(300);
    dest.on('/three', s.handler);
    await put(api, '/flow-keys/three', { concurrency: 3 });
    await accept(api, Array.from({ length: 15 }, () => ({ url: url('/three'), flow_keys: ['three'] })));
    await dest.waitForRequests('/three', 15, 30_000);
    expect(s.most()).toBe(3);
  });

  it.concurrent('a queue with concurrency 2 keeps two calls open, not the process-wide bound', async () => {
    const s = slow(200);
    dest.on('/pair', s.handler);
    await put(api, '/queues/pair', { concurrency: 2 });
    await accept(api, Array.from({ length: 10 }, () => ({ url: url('/pair'), queue: 'pair' })));
    await dest.waitForRequests('/pair', 10, 30_000);
    expect(s.most()).toBe(2);
  });

  it.concurrent('a queue limited to 4/s with a burst of 1 spaces its attempts', async () => {
    await put(api, '/queues/spaced', { rate: { limit: 4, period: '1s', burst: 1 } });
    await accept(api, Array.from({ length: 6 }, () => ({ url: url('/spaced'), queue: 'spaced' })));
    const times = (await dest.waitForRequests('/spaced', 6, 20_000)).map((r) => r.receivedAt).sort((a, b) => a - b);
    // From the second arrival: the first attempt also opens the connection, so it may arrive late by a handshake on a
    // busy machine while the later ones keep their spacing, less what a held-up process lets go together (unlimited,
    // the six arrive within a few tens of milliseconds).
    expect(times.at(-1)! - times[1]!).toBeGreaterThanOrEqual(4 * 250 - 250 - 100);
    expect(busiestWindow(times, 1_000)).toBeLessThanOrEqual(4 + 1 + 1 + JITTER(4));
  });

  it.concurrent('metrics count per queue what started and what was held, and show its admitted rate', async () => {
    await put(api, '/queues/metered', { rate: { limit: 2, period: '1s', burst: 1 } });
    await accept(api, Array.from({ length: 4 }, () => ({ url: url('/metered'), queue: 'metered' })));
    await dest.waitForRequests('/metered', 4, 20_000);
    const text = await eventually(async () => {
      const scraped = await (await fetch(`${ferry.baseUrl}/metrics`)).text();
      return sampleOf(scraped, 'ferry_flow_started_total', { queue: 'metered' }) === 4 ? scraped : undefined;
    });
    expect(sampleOf(text, 'ferry_flow_held_total', { queue: 'metered', reason: 'rate' })).toBeGreaterThanOrEqual(3);
    expect(sampleOf(text, 'ferry_flow_admitted_rate', { queue: 'metered' })).toBe(2);
    expect(text).toContain('ferry_flow_waiting{queue="metered",reason="paused"} 0');
  });

  it.concurrent('two keys on one request bind by the tighter one, and say so', async () => {
    await put(api, '/flow-keys/loose', { rate: { limit: 50, period: '1s' } });
    await put(api, '/flow-keys/tight', { rate: { limit: 2, period: '1s', burst: 1 } });
    const ids = await accept(api, Array.from({ length: 8 }, () => ({ url: url('/both'), flow_keys: ['loose', 'tight'] })));
    const held = await eventually(async () => {
      for (const id of ids) {
        const d = (await api.call<Detail>('GET', `/requests/${id}`)).body.data;
        if (d.waiting_for !== null) return d;
      }
      return undefined;
    });
    expect(held.flow_keys).toEqual(['loose', 'tight']);
    expect(held.waiting_for).toEqual({ kind: 'flow_key', name: 'tight', reason: 'rate' });
    const times = (await dest.waitForRequests('/both', 8, 20_000)).map((r) => r.receivedAt).sort((a, b) => a - b);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(7 * 500 * 0.8);
  });

  it.concurrent('pause: nothing new starts, requests wait saying why, resume sends them', async () => {
    const paused = await api.call<BudgetObject>('POST', '/flow-keys/held/pause');
    expect(paused.body.data.paused).toBe(true);
    const ids = await accept(api, Array.from({ length: 5 }, () => ({ url: url('/held'), flow_keys: ['held'] })));
    const waiting = await eventually(async () => {
      const d = (await api.call<Detail>('GET', `/requests/${ids[0]}`)).body.data;
      return d.waiting_for !== null ? d : undefined;
    });
    expect(waiting).toMatchObject({ status: 'queued', waiting_for: { kind: 'flow_key', name: 'held', reason: 'paused' } });
    await eventually(async () => ((await read(api, '/flow-keys/held')).waiting.paused === 5 ? true : undefined));
    await sleep(1_500);
    expect(dest.requestsTo('/held')).toHaveLength(0);
    const resumed = await api.call<BudgetObject>('POST', '/flow-keys/held/resume');
    expect(resumed.body.data.paused).toBe(false);
    // Woken at once by the process that held them, not at their next look.
    await dest.waitForRequests('/held', 5, 3_000);
  });

  it.concurrent('a pause stops new starts within a second; a cancel still ends a held request', async () => {
    await put(api, '/flow-keys/stream', { rate: { limit: 4, period: '1s', burst: 1 } });
    const ids = await accept(api, Array.from({ length: 30 }, () => ({ url: url('/stream'), flow_keys: ['stream'] })));
    await dest.waitForRequests('/stream', 3, 10_000);
    expect((await api.call('POST', '/flow-keys/stream/pause')).status).toBe(200);
    const pausedAt = Date.now();
    await sleep(2_500);
    const late = dest.requestsTo('/stream').filter((r) => r.receivedAt > pausedAt + 1_000);
    expect(late).toHaveLength(0);
    const before = dest.requestsTo('/stream').length;
    const last = ids.at(-1)!;
    expect((await api.call('POST', `/requests/${last}/cancel`)).status).toBeLessThan(300);
    expect((await api.call('POST', '/flow-keys/stream/resume')).status).toBe(200);
    await dest.waitForRequests('/stream', before + 2, 5_000);
    expect((await api.call<Detail>('GET', `/requests/${last}`)).body.data.status).toBe('cancelled');
  });

  it.concurrent('a destination answering 429 for 10 s slows its key down, which then climbs back', async () => {
    let until = 0;
    dest.on('/busy', (e) => {
      until ||= Date.now() + 10_000;
      return replies.status(Date.now() < until ? 429 : 200)(e);
    });
    await put(api, '/flow-keys/busy', { rate: { limit: 10, period: '1s' } });
    await accept(api, Array.from({ length: 400 }, () => ({ url: url('/busy'), flow_keys: ['busy'], retry: { max_attempts: 20 } })));
    const slowed = await eventually(async () => {
      const b = await read(api, '/flow-keys/busy');
      return b.admitted_rate !== null && b.admitted_rate < 10 ? b : undefined;
    }, 10_000);
    expect(slowed.admitted_rate).toBeGreaterThan(0);
    // Once the destination answers 200 again, successes bring the rate back.
    await eventually(async () => (Date.now() > until && (await read(api, '/flow-keys/busy')).admitted_rate === 10 ? true : undefined), 45_000);
  });
});

describe.runIf(TEST_BACKEND === 'cassandra')('flow control over two processes', () => {
  let dest: Destination;
  let ferries: FerryProcess[];
  let apis: Api[];

  beforeAll(async () => {
    dest = await startDestination();
    const first = await startFerry({ env: { ...ENV, FERRY_DELIVERY_CA_FILE: dest.certFile } });
    const second = await startFerry({ dataDir: first.dataDir, env: { ...ENV, FERRY_DELIVERY_CA_FILE: dest.certFile } });
    ferries = [first, second];
    const { apiKey } = await createProject(first.dataDir);
    apis = ferries.map((f) => new Api(f.baseUrl, apiKey));
  });
  afterAll(async () => {
    await Promise.all((ferries ?? []).map((f) => f.stop()));
    await dest?.close();
  });

  it("a key's rate holds across both: its requests, accepted through either, are delivered by one", async () => {
    await put(apis[0]!, '/flow-keys/shared', { rate: { limit: 5, period: '1s' } });
    // Every process reads configurations every 500 ms.
    await sleep(1_000);
    const items = Array.from({ length: 30 }, () => ({ url: `${dest.url}/shared`, flow_keys: ['shared'] }));
    await Promise.all([accept(apis[0]!, items), accept(apis[1]!, items)]);
    const times = (await dest.waitForRequests('/shared', 60, 40_000)).map((r) => r.receivedAt).sort((a, b) => a - b);
    expect(busiestWindow(times, 1_000)).toBeLessThanOrEqual(10 + 1 + JITTER(5));
    expect(54 / ((times.at(-1)! - times[5]!) / 1000)).toBeLessThanOrEqual(5 * 1.05);
    const state = await read(apis[1]!, '/flow-keys/shared');
    expect(state.admitted_rate).toBe(5);
  });
});
