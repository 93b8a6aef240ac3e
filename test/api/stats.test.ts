import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetStatsRequestSchema, GetStatsResponseSchema, StatsService } from '../../src/gen/ferry/v1/stats_service_pb.js';
import { Api, eventually } from '../support/api-client.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { GrpcTestClient } from '../support/grpc-client.js';

interface Counts {
  accepted: number;
  delivered: number;
  failed: number;
  retried: number;
  callbacks: number;
}
interface Stats {
  as_of: string;
  from: string;
  minutes: Array<Counts & { minute: string }>;
  totals: Counts;
  failure_rate: number | null;
  backlog: Array<{ queue: string; queued: number | null; scheduled: number | null; delivering: number; held: number; paused: boolean; oldest_due_at: string | null }>;
  backlog_counted: boolean;
  backlog_truncated: boolean;
}

const MINUTE_MS = 60_000;

// Delivery moves the counts, so this file runs a server that delivers (the shared one only accepts).
describe('GET /stats', () => {
  let dest: Destination;
  let ferry: FerryProcess;
  let api: Api;
  let apiKey: string;
  let other: Api;

  beforeAll(async () => {
    dest = await startDestination();
    dest.on('/fails', replies.status(500));
    ferry = await startFerry({
      env: { FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: dest.certFile, FERRY_RETRY_BASE_MS: '40', FERRY_AUTH_CACHE_MS: '0' },
    });
    const project = await createProject(ferry.dataDir);
    apiKey = project.apiKey;
    api = new Api(ferry.baseUrl, apiKey);
    other = new Api(ferry.baseUrl, (await createProject(ferry.dataDir)).apiKey);
  });
  afterAll(async () => {
    await ferry?.stop();
    await dest?.close();
  });

  const stats = async (client: Api = api): Promise<Stats> => {
    const res = await client.call<Stats>('GET', '/stats');
    expect(res.status).toBe(200);
    return res.body.data;
  };

  it('counts accepts, deliveries, retries and failures by minute, and only the caller project', async () => {
    const before = await stats();
    expect(before.totals).toEqual({ accepted: 0, delivered: 0, failed: 0, retried: 0, callbacks: 0 });
    expect(before.minutes).toEqual([]);
    expect(before.failure_rate).toBeNull();

    for (let i = 0; i < 3; i++) expect((await api.send({ url: `${dest.url}/ok` })).status).toBe(202);
    expect((await api.send({ url: `${dest.url}/fails`, retry: '1' })).status).toBe(202);
    // A request of another project never shows in this one's counts.
    expect((await other.send({ url: `${dest.url}/ok` })).status).toBe(202);

    // The server counts in memory and answers its own counts at once; deliveries take their time.
    const after = await eventually(async () => {
      const s = await stats();
      return s.totals.delivered === 3 && s.totals.failed === 1 ? s : undefined;
    }, 20_000);
    expect(after.totals).toEqual({ accepted: 4, delivered: 3, failed: 1, retried: 1, callbacks: 0 });
    expect(after.failure_rate).toBeCloseTo(0.25);
    const summed = after.minutes.reduce((n, m) => n + m.accepted, 0);
    expect(summed).toBe(4);
    for (const m of after.minutes) expect(new Date(m.minute).getTime() % MINUTE_MS).toBe(0);

    const theirs = await eventually(async () => {
      const s = await stats(other);
      return s.totals.delivered === 1 ? s : undefined;
    }, 20_000);
    expect(theirs.totals).toEqual({ accepted: 1, delivered: 1, failed: 0, retried: 0, callbacks: 0 });
  });

  it('covers the last 24 hours up to the current minute', async () => {
    const s = await stats();
    const asOf = new Date(s.as_of).getTime();
    const from = new Date(s.from).getTime();
    expect(from % MINUTE_MS).toBe(0);
    expect(Math.floor(asOf / MINUTE_MS) * MINUTE_MS - from).toBe(1439 * MINUTE_MS);
    for (const m of s.minutes) {
      const t = new Date(m.minute).getTime();
      expect(t).toBeGreaterThanOrEqual(from);
      expect(t).toBeLessThanOrEqual(asOf);
    }
  });

  it('shows the backlog by queue: a scheduled request waits in its queue', async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect((await api.send({ url: `${dest.url}/ok`, deliver_at: later, queue: 'later' })).status).toBe(202);
    // A queue's first use is recorded beside the insert, so the distributed list may show it a moment later.
    const s = await eventually(async () => {
      const read = await stats();
      return read.backlog.some((q) => q.queue === 'later') ? read : undefined;
    });
    const queue = s.backlog.find((q) => q.queue === 'later');
    if (s.backlog_counted) {
      expect(queue).toMatchObject({ queued: 0, scheduled: 1, delivering: 0, held: 0, paused: false });
      expect(Math.abs(new Date(queue!.oldest_due_at!).getTime() - new Date(later).getTime())).toBeLessThan(1000);
    } else {
      // Distributed storage does not count waiting requests: every queue used is listed, with what is in flight.
      expect(queue).toMatchObject({ queued: null, scheduled: null, delivering: 0, held: 0, paused: false, oldest_due_at: null });
    }
    expect((await stats(other)).backlog.find((q) => q.queue === 'later')).toBeUndefined();
  });

  it('answers the same over gRPC, and refuses a call without a key', async () => {
    const json = await stats();
    const client = new GrpcTestClient(StatsService, ferry.grpcAddress, apiKey);
    try {
      const answer = await client.call('GetStats', GetStatsRequestSchema, GetStatsResponseSchema, {});
      if (!answer.ok) throw answer.error;
      expect(answer.value.stats?.totals).toMatchObject({ accepted: BigInt(json.totals.accepted), delivered: BigInt(json.totals.delivered), failed: BigInt(json.totals.failed) });
    } finally {
      client.close();
    }
    expect((await api.call('GET', '/stats', { auth: null })).status).toBe(401);
  });
});
