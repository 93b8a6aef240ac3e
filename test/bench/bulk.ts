/**
 * Bulk replay under load, destination on loopback (HTTPS). `--requests` (100,000) requests to a destination that
 * answers 400 fail after one attempt each; the destination then recovers (answers 200) and one bulk action replays
 * every failure (`{"action": "replay", "filter": {"queue": "bulk", "status": "failed"}}`), with no limit on the queue:
 * as fast as the service goes. Meanwhile a steady stream of single `POST /requests` (`--probe-rate`, 50/s, to
 * another queue) measures the accept latency, first idle (`--idle-seconds`, 15, after 3 s of warm-up) and then
 * while the replay runs, until every replay has been delivered. Prints the replays created per second (the action's
 * `created_at` to `completed_at`), delivered per second (the action's start to the last replay's arrival), and the
 * probe's p50 and p99 idle and under the replay. `--processes 1` runs it on Cassandra + Kafka instead.
 * `--batch-size` and `--pause-ms` set `FERRY_BULK_BATCH_SIZE` and `FERRY_BULK_PAUSE_MS` (their defaults otherwise).
 *
 *   npm run build && npx tsx test/bench/bulk.ts [--requests 100000] [--probe-rate 50] [--idle-seconds 15]
 *     [--processes 1] [--batch-size 200] [--pause-ms 100]
 */
import { loadavg } from 'node:os';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const processes = args.has('processes') ? Number(args.get('processes')) : null;
// The backend is chosen when the test support is loaded: set it first.
if (processes !== null) process.env.FERRY_TEST_BACKEND = 'cassandra';

const { Api } = await import('../support/api-client.js');
const { createProject, startFerry } = await import('../support/ferry-process.js');
const { startReceiver } = await import('./receiver.js');
const { startCluster, percentile, sortedFinite } = await import('./distributed-cluster.js');
const { dropDeployments } = await import('../support/deployment.js');
type ApiT = InstanceType<typeof Api>;

const count = Number(args.get('requests') ?? 100_000);
const probeRate = Number(args.get('probe-rate') ?? 50);
const idleSeconds = Number(args.get('idle-seconds') ?? 15);
const filter = { queue: 'bulk', status: 'failed' };

let destinationDown = true;
const dest = await startReceiver(0, (path) => (path === '/bulk' && destinationDown ? 400 : 200));
const env: Record<string, string> = { FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: dest.certFile };
if (args.has('batch-size')) env.FERRY_BULK_BATCH_SIZE = args.get('batch-size')!;
if (args.has('pause-ms')) env.FERRY_BULK_PAUSE_MS = args.get('pause-ms')!;

async function check<T>(res: Promise<{ status: number; body: { data: T; error: unknown } }>, expected: number): Promise<T> {
  const r = await res;
  if (r.status !== expected) throw new Error(`answered ${r.status}: ${JSON.stringify(r.body.error)}`);
  return r.body.data;
}

async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, deadlineMs: number): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('deadline passed');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The originals: batches of 100, eight at a time. */
async function acceptOriginals(api: ApiT): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const start = next;
        next += 100;
        const requests = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({ url: `${dest.url}/bulk`, queue: 'bulk', body: { i: start + i } }));
        await check(api.call('POST', '/requests/batch', { json: { requests }, headers: { 'idempotency-key': `bulk-${start}` } }), 202);
      }
    }),
  );
}

/**
 * Single creates at `probeRate` per second, started on a timer whatever the answers take (a client that waits for
 * each answer would slow down with the service and hide its latency), until `stop`; at most 500 outstanding.
 */
function probe(api: ApiT): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  const outstanding = new Set<Promise<void>>();
  let sent = 0;
  const began = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - began) / 1000) * probeRate);
    while (sent < due && outstanding.size < 500) {
      sent++;
      const t = performance.now();
      const call = check(api.call('POST', '/requests', { json: { url: `${dest.url}/probe`, queue: 'probe' } }), 202)
        .then(() => void latencies.push(performance.now() - t))
        .finally(() => outstanding.delete(call));
      outstanding.add(call);
    }
  }, 5);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all([...outstanding]);
      return latencies;
    },
  };
}

function summary(ms: number[]): string {
  const s = sortedFinite(ms);
  return `n ${s.length}, p50 ${percentile(s, 50).toFixed(1)} ms, p99 ${percentile(s, 99).toFixed(1)} ms`;
}

async function deployment(): Promise<{ api: ApiT; stop(): Promise<void> }> {
  if (processes === null) {
    const ferry = await startFerry({ env });
    const { apiKey } = await createProject(ferry.dataDir, { monthlyAllowance: 1_000_000_000 });
    return {
      api: new Api(ferry.baseUrl, apiKey),
      async stop() {
        await ferry.stop();
      },
    };
  }
  const cluster = await startCluster(processes, env);
  await cluster.waitForCoverage();
  return {
    api: cluster.processes[0]!.api,
    async stop() {
      await cluster.stop();
      await dropDeployments();
    },
  };
}

const d = await deployment();
try {
  const api = d.api;
  const load = (): string => loadavg().map((n) => n.toFixed(1)).join(' ');
  console.log(`bulk: ${count} failed requests, probe ${probeRate}/s, ${processes === null ? 'embedded' : `distributed, ${processes} process(es)`}, ${JSON.stringify(env)}`);
  await acceptOriginals(api);
  await waitFor(() => (dest.arrivalsAt('/bulk').length >= count ? true : undefined), 600_000);
  await waitFor(async () => {
    const dry = await check<{ matched: number }>(api.call('POST', '/bulk-actions', { json: { action: 'replay', filter, dry_run: true } }), 200);
    return dry.matched === count ? true : undefined;
  }, 120_000);
  destinationDown = false;
  const originals = dest.arrivalsAt('/bulk').length;

  const warm = probe(api);
  await new Promise((r) => setTimeout(r, 3_000));
  await warm.stop();
  const idleLoad = load();
  const idle = probe(api);
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const idleMs = await idle.stop();

  const under = probe(api);
  const startedAt = Date.now();
  const action = await check<{ id: string; matched: number }>(
    api.call('POST', '/bulk-actions', { json: { action: 'replay', filter }, headers: { 'idempotency-key': `bulk-replay-${startedAt}` } }),
    202,
  );
  const completed = await waitFor(async () => {
    const a = await check<{ state: string; done: number; created_at: string; completed_at: string | null }>(api.call('GET', `/bulk-actions/${action.id}`), 200);
    return a.state === 'completed' ? a : undefined;
  }, 1_800_000);
  await waitFor(() => (dest.arrivalsAt('/bulk').length >= originals + count ? true : undefined), 1_800_000);
  const underLoad = load();
  const underMs = await under.stop();
  const lastArrival = Math.max(...dest.arrivalsAt('/bulk').slice(originals).map((a) => a.receivedAt));
  const createSeconds = (Date.parse(completed.completed_at!) - Date.parse(completed.created_at)) / 1000;
  const deliverSeconds = (lastArrival - startedAt) / 1000;
  const idleP99 = percentile(sortedFinite(idleMs), 99);
  const underP99 = percentile(sortedFinite(underMs), 99);
  console.log(`  replays created: ${completed.done} in ${createSeconds.toFixed(1)} s = ${(completed.done / createSeconds).toFixed(0)}/s`);
  console.log(`  replays delivered: ${count} in ${deliverSeconds.toFixed(1)} s = ${(count / deliverSeconds).toFixed(0)}/s`);
  console.log(`  accept idle:        ${summary(idleMs)} (load ${idleLoad})`);
  console.log(`  accept under bulk:  ${summary(underMs)} (load ${underLoad})`);
  console.log(`  p99 under / idle: ${(underP99 / idleP99).toFixed(2)}`);
} finally {
  await d.stop();
  await dest.close();
}
