/**
 * Distributed benchmarks: 1, 2 and 3 `ferry serve` processes on Cassandra + Kafka (a fresh deployment per
 * process count, shards covered before anything is measured), destination on loopback (HTTPS):
 *  - timer lateness: requests falling due at a steady rate (default 1,000 per second for 10 s), accepted ahead of
 *    time through every process; lateness = arrival at the destination minus scheduled time; nothing may arrive
 *    early;
 *  - delivery throughput: requests accepted in batches of 100 (round robin over the processes) while delivery
 *    runs; deliveries/s from the first to the last arrival, then every request read back as succeeded;
 *  - accept: autocannon POST /send spread over the processes (one URL per process, connections round robin),
 *    first with delivery deferred (`delay=1h`: the accept path alone), then delivered at once (`accept-live`:
 *    accept and delivery share the machine).
 * CPU use of Cassandra, Kafka, each service process and this process is measured over every phase.
 *
 *   bash test/infra/infra.sh up && npm run build && npx tsx test/bench/distributed.ts \
 *     [--processes 1,2,3] [--phases lateness,deliver,accept,accept-live] [--requests 20000] \
 *     [--due-per-second 1000] [--due-seconds 10] [--lead-ms <measured>] [--seconds 10] [--connections 64] \
 *     [--per-host 256] [--verify all|sample] [--warm-up-seconds 20] [--warm-up-rounds 3]
 *     [--phases idle,fixed-load --rate 400 --seconds 60 --lead-in-seconds 15 --due-after-ms 1000 --idle-seconds 60]
 *  - fixed-load and idle: see `distributed-fixed-load.ts`.
 *
 * Cassandra's figures on this machine move several-fold with how warm its JVM is: on a freshly started node the
 * first accept phase cost it about five times the CPU per request of the sixth. So the bare-client load runs
 * unreported for `--warm-up-seconds` first, then `--warm-up-rounds` rounds of both accept phases on a throwaway
 * one-process deployment, which take the Paxos, batch and read paths of a real deployment through the JIT
 * (0 skips either).
 */
import './distributed-env.js';
import autocannon from 'autocannon';
import type { Api } from '../support/api-client.js';
import { backendEnv, dropDeployments } from '../support/deployment.js';
import { startDestination, type Destination, type Exchange } from '../support/destination.js';
import {
  assertInfra,
  ferryCores,
  forEachBounded,
  meterCluster,
  parseArgs,
  percentile,
  printTable,
  round,
  sleep,
  sortedFinite,
  startCluster,
  StorageMeter,
  formatCeiling,
  storageCeiling,
  type Cluster,
} from './distributed-cluster.js';
import { coresOf, formatCpu, formatCpuPer, type CpuUse } from './cpu-meter.js';
import { cpuPerDelivery, fixedLoad, idle, othersCores, type FixedLoadResult, type IdleResult } from './distributed-fixed-load.js';

const args = parseArgs();
const processCounts = (args.get('processes') ?? '1,2,3').split(',').map(Number);
const phases = new Set((args.get('phases') ?? 'lateness,deliver,accept,accept-live').split(','));
const total = Number(args.get('requests') ?? 20_000);
const duePerSecond = Number(args.get('due-per-second') ?? 1000);
const dueSeconds = Number(args.get('due-seconds') ?? 10);
const dueCount = duePerSecond * dueSeconds;
const leadArg = args.get('lead-ms');
const seconds = Number(args.get('seconds') ?? 10);
const connections = Number(args.get('connections') ?? 64);
const perHost = args.get('per-host') ?? '256';
const verify = args.get('verify') ?? 'all';
const warmUpSeconds = Number(args.get('warm-up-seconds') ?? 20);
const warmUpRounds = Number(args.get('warm-up-rounds') ?? 3);
const fixed = {
  rate: Number(args.get('rate') ?? 400),
  seconds,
  leadInSeconds: Number(args.get('lead-in-seconds') ?? 15),
  dueAfterMs: Number(args.get('due-after-ms') ?? 1000),
};
const idleSeconds = Number(args.get('idle-seconds') ?? 60);

interface PhaseProblems {
  /** Reads and writes per table, from Cassandra's metrics. */
  storage: string;
  rebalances: number;
  logWarnings: number;
  logErrors: number;
  lastProblem: string | null;
}

interface LatenessResult extends PhaseProblems {
  leadMs: number;
  acceptMs: number;
  arrived: number;
  duplicates: number;
  min: number;
  p50: number;
  p99: number;
  max: number;
  early: number;
  claimP50: number;
  claimP99: number;
  sendP99: number;
  cpu: CpuUse;
}

interface DeliverResult extends PhaseProblems {
  acceptMs: number;
  deliveryMs: number;
  arrived: number;
  duplicates: number;
  succeeded: number;
  checked: number;
  cpu: CpuUse;
}

interface AcceptResult extends PhaseProblems {
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  accepted: number;
  non202: number;
  errors: number;
  statuses: string;
  delivered: number;
  cpu: CpuUse;
}

interface RunResult {
  processes: number;
  coverageMs: number;
  lateness?: LatenessResult;
  deliver?: DeliverResult;
  accept?: AcceptResult;
  acceptLive?: AcceptResult;
  idle?: IdleResult;
  fixedLoad?: FixedLoadResult;
}

/**
 * Counts ownership changes and logged problems of a phase against the cluster's counters at its start, and what
 * the storage did meanwhile.
 */
async function problemsSince(cluster: Cluster): Promise<() => Promise<PhaseProblems>> {
  const at = cluster.counters();
  const storage = await storageMeter.start(backendEnv(cluster.dataDir).FERRY_CASSANDRA_KEYSPACE!);
  return async () => {
    const now = cluster.counters();
    return {
      storage: await storage.stop(),
      rebalances: now.releases - at.releases,
      logWarnings: now.warnings - at.warnings,
      logErrors: now.errors - at.errors,
      lastProblem: now.warnings + now.errors > at.warnings + at.errors ? now.lastProblem : null,
    };
  };
}

/** Index and number carried in the destination URL's query, e.g. `/due?i=12&at=1700000000000`. */
function queryNumber(path: string, name: string): number {
  const m = new RegExp(`[?&]${name}=(\\d+)`).exec(path);
  return m === null ? NaN : Number(m[1]);
}

/**
 * Accepts `count` requests through /requests/batch, 100 per call, `concurrency` calls at once spread round robin
 * over the processes. `onAccepted` gets every request's index and ID.
 */
async function acceptInBatches(
  apis: readonly Api[],
  count: number,
  item: (i: number) => Record<string, unknown>,
  onAccepted: (i: number, id: string) => void,
  concurrency = 8,
): Promise<number> {
  const start = Date.now();
  const batches = Math.ceil(count / 100);
  await forEachBounded(batches, concurrency, async (b) => {
    const first = b * 100;
    const items = Array.from({ length: Math.min(100, count - first) }, (_, k) => item(first + k));
    const api = apis[b % apis.length]!;
    for (let attempt = 1; ; attempt++) {
      const res = await api.call<{ requests: Array<{ id: string }> }>('POST', '/requests/batch', {
        json: { requests: items },
        headers: { 'idempotency-key': `bench-${process.pid}-${start}-${b}` },
      });
      if (res.status === 202) {
        res.body.data.requests.forEach((r, k) => onAccepted(first + k, r.id));
        return;
      }
      // A 503 means nothing was stored; the same key makes the retry safe either way.
      if (res.status !== 503 || attempt >= 5) throw new Error(`batch answered ${res.status}: ${JSON.stringify(res.body?.error)}`);
      await sleep(200 * attempt);
    }
  });
  return Date.now() - start;
}

async function lateness(cluster: Cluster, dest: Destination): Promise<LatenessResult> {
  const apis = cluster.processes.map((p) => p.api);
  const late = new Float64Array(dueCount).fill(NaN);
  let arrived = 0;
  let duplicates = 0;
  dest.on('/due', ({ request, res }: Exchange) => {
    const i = queryNumber(request.path, 'i');
    if (Number.isNaN(late[i]!)) late[i] = request.receivedAt - queryNumber(request.path, 'at');
    else duplicates++;
    arrived++;
    res.writeHead(200).end();
  });
  const ids: string[] = new Array<string>(dueCount);
  // How far ahead the first request falls due: time to accept them all, from a measured sample of 800 unless given.
  let leadMs = Number(leadArg);
  if (leadArg === undefined) {
    const sampleMs = await acceptInBatches(apis, 800, () => ({ url: `${dest.url}/later`, delay: '1h' }), () => undefined);
    leadMs = Math.round(3_000 + 1.5 * (dueCount / 800) * sampleMs);
  }
  const t0 = Date.now() + leadMs;
  const dueAt = (i: number) => t0 + Math.floor((i * 1000) / duePerSecond);
  const acceptMs = await acceptInBatches(
    apis,
    dueCount,
    (i) => ({ url: `${dest.url}/due?i=${i}&at=${dueAt(i)}`, deliver_at: new Date(dueAt(i)).toISOString() }),
    (i, id) => (ids[i] = id),
  );
  if (Date.now() > t0) console.log(`  warning: accepting took ${acceptMs} ms, past the first due time; raise --lead-ms`);
  await sleep(Math.max(0, t0 - Date.now() - 500));
  const problems = await problemsSince(cluster);
  const meter = meterCluster(cluster);
  const until = dueAt(dueCount - 1) + 300_000;
  while (arrived - duplicates < dueCount && Date.now() < until) await sleep(50);
  const cpu = meter.stop();
  const phase = await problems();
  const sorted = sortedFinite(late);
  // Claim lateness (the request's started_at) and send lateness (its first attempt's start), sampled.
  const claim: number[] = [];
  const send: number[] = [];
  const step = Math.max(1, Math.floor(dueCount / 500));
  await forEachBounded(Math.ceil(dueCount / step), 8, async (k) => {
    const i = k * step;
    const d = await apis[k % apis.length]!.call<{ started_at: string | null; attempts: Array<{ started_at: string }> }>('GET', `/requests/${ids[i]}`);
    if (d.status !== 200 || d.body.data.started_at === null) return;
    claim.push(Date.parse(d.body.data.started_at) - dueAt(i));
    if (d.body.data.attempts[0] !== undefined) send.push(Date.parse(d.body.data.attempts[0].started_at) - dueAt(i));
  });
  claim.sort((a, b) => a - b);
  send.sort((a, b) => a - b);
  return {
    leadMs,
    acceptMs,
    arrived: sorted.length,
    duplicates,
    min: sorted[0] ?? NaN,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    early: sorted.filter((l) => l < 0).length,
    claimP50: percentile(claim, 50),
    claimP99: percentile(claim, 99),
    sendP99: percentile(send, 99),
    cpu,
    ...phase,
  };
}

async function deliver(cluster: Cluster, dest: Destination): Promise<DeliverResult> {
  const apis = cluster.processes.map((p) => p.api);
  const seen = new Uint8Array(total);
  let distinct = 0;
  let duplicates = 0;
  let first = 0;
  let last = 0;
  dest.on('/t', ({ request, res }: Exchange) => {
    const i = queryNumber(request.path, 'i');
    if (seen[i] === 0) {
      seen[i] = 1;
      distinct++;
    } else duplicates++;
    first ||= request.receivedAt;
    last = request.receivedAt;
    res.writeHead(200).end();
  });
  const ids: string[] = new Array<string>(total);
  const problems = await problemsSince(cluster);
  const meter = meterCluster(cluster);
  const acceptMs = await acceptInBatches(
    apis,
    total,
    (i) => ({ url: `${dest.url}/t?i=${i}`, body: { i }, retry: { max_attempts: 3 } }),
    (i, id) => (ids[i] = id),
  );
  const until = Date.now() + 900_000;
  while (distinct < total && Date.now() < until) await sleep(50);
  const cpu = meter.stop();
  const phase = await problems();
  // Read back: every request (or every 97th) must be recorded as succeeded; the record follows the arrival.
  const step = verify === 'all' ? 1 : 97;
  let pending = Array.from({ length: Math.ceil(total / step) }, (_, k) => k * step);
  const checked = pending.length;
  const readUntil = Date.now() + 60_000;
  while (pending.length > 0 && Date.now() < readUntil) {
    const notYet: number[] = [];
    await forEachBounded(pending.length, 32, async (k) => {
      const i = pending[k]!;
      const res = await apis[k % apis.length]!.call<{ status: string }>('GET', `/requests/${ids[i]}`);
      if (res.status !== 200 || res.body.data.status !== 'succeeded') notYet.push(i);
    });
    pending = notYet;
    if (pending.length > 0) await sleep(500);
  }
  return { acceptMs, deliveryMs: last - first, arrived: distinct, duplicates, succeeded: checked - pending.length, checked, cpu, ...phase };
}

async function accept(cluster: Cluster, dest: Destination, live: boolean): Promise<AcceptResult> {
  const n = cluster.processes.length;
  const conns = Math.ceil(connections / n) * n;
  let delivered = 0;
  dest.on('/live', ({ res }: Exchange) => {
    delivered++;
    res.writeHead(200).end();
  });
  const target = live ? `${dest.url}/live` : `${dest.url}/later`;
  const urls = cluster.processes.map((p) => `${p.ferry.baseUrl}/send?url=${encodeURIComponent(target)}&retry=3${live ? '' : '&delay=1h'}`);
  const opts = {
    // Several URLs are spread over the connections round robin; the type definitions only know one.
    url: urls as unknown as string,
    method: 'POST' as const,
    connections: conns,
    headers: { authorization: `Bearer ${cluster.apiKey}`, 'content-type': 'application/json', 'x-forward-x-trace': 'bench' },
    body: JSON.stringify({ event: 'order.created', id: 42, padding: 'x'.repeat(64) }),
  };
  // Warm up the JIT, the key cache and the prepared statements before measuring.
  await autocannon({ ...opts, duration: 2 });
  const problems = await problemsSince(cluster);
  const meter = meterCluster(cluster);
  const deliveredBefore = delivered;
  const r = await autocannon({ ...opts, duration: seconds });
  const cpu = meter.stop();
  const codes = r.statusCodeStats as unknown as Record<string, { count: number }>;
  const accepted = codes['202']?.count ?? 0;
  const answered = Object.values(codes).reduce((a, c) => a + c.count, 0);
  return {
    connections: conns,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    accepted,
    non202: answered - accepted,
    errors: r.errors + r.timeouts,
    statuses: Object.entries(codes).map(([code, c]) => `${code}×${c.count}`).join(' '),
    delivered: delivered - deliveredBefore,
    cpu,
    ...(await problems()),
  };
}

function problemNote(p: PhaseProblems): string {
  const parts = [];
  if (p.rebalances > 0) parts.push(`${p.rebalances} shard releases`);
  if (p.logWarnings > 0) parts.push(`${p.logWarnings} logged warnings`);
  if (p.logErrors > 0) parts.push(`${p.logErrors} logged errors`);
  return parts.length === 0 ? '' : `  (${parts.join(', ')}; last: ${p.lastProblem ?? '-'})`;
}

/** One unreported round of both accept phases on a throwaway one-process deployment; its rates, for the log. */
function warmUp(): Promise<string> {
  return onDeployment(1, async (cluster, dest) => {
    await cluster.waitForCoverage();
    const later = await accept(cluster, dest, false);
    const live = await accept(cluster, dest, true);
    return `${round(later.rps)} and ${round(live.rps)} req/s`;
  });
}

/** Runs `use` on a fresh deployment of `n` processes and its destination, and removes both after. */
async function onDeployment<T>(n: number, use: (cluster: Cluster, dest: Destination) => Promise<T>): Promise<T> {
  const dest = await startDestination({ record: false });
  const cluster = await startCluster(n, {
    // Every request goes to the one loopback destination, so the per-host limit is the one that binds.
    FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
    FERRY_DELIVERY_CA_FILE: dest.certFile,
    FERRY_DELIVERY_MAX_PER_HOST: perHost,
  });
  try {
    return await use(cluster, dest);
  } finally {
    await cluster.stop();
    await dest.close();
    await dropDeployments();
  }
}

function run(n: number): Promise<RunResult> {
  return onDeployment(n, async (cluster, dest) => {
    const coverageMs = await cluster.waitForCoverage();
    const owned = cluster.processes.map((p) => `[${p.log.owned.join(',')}]`).join(' ');
    console.log(`\n${n} process(es): shards covered ${coverageMs} ms after start: ${owned}`);
    const result: RunResult = { processes: n, coverageMs };
    if (phases.has('idle')) {
      const u = (result.idle = await idle(cluster, storageMeter, idleSeconds));
      console.log(`  idle ${idleSeconds} s: cpu ${formatCpu(u.cpu)}; others ${othersCores(u.cpu).toFixed(2)} cores`);
      console.log(`    threads: ${u.threads}`);
      console.log(`    storage: ${u.storage}`);
    }
    if (phases.has('fixed-load')) {
      const problems = await problemsSince(cluster);
      const f = (result.fixedLoad = await fixedLoad(cluster, dest, storageMeter, fixed));
      const p = await problems();
      const per = cpuPerDelivery(f.cpu, f.deliveries);
      console.log(
        `  fixed load (${fixed.rate}/s offered, each due ${fixed.dueAfterMs} ms after it was sent, ${seconds} s measured): ` +
          `${round(f.delivered)} delivered/s, lost ${f.lost}, refused ${f.refused}, duplicates ${f.duplicates}; lateness p50 ${f.p50} ms, ` +
          `p99 ${f.p99} ms, max ${f.max} ms, early ${f.early}${problemNote(p)}`,
      );
      console.log(`    cpu: ${formatCpu(f.cpu)}; others ${othersCores(f.cpu).toFixed(2)} cores`);
      console.log(`    cpu ms per delivery: ferry ${per.ferry}, cassandra ${per.cassandra}, kafka ${per.kafka}`);
      console.log(`    threads: ${f.threads}`);
      console.log(`    storage: ${f.storage}`);
    }
    if (phases.has('lateness')) {
      const l = (result.lateness = await lateness(cluster, dest));
      console.log(
        `  timer lateness (${duePerSecond}/s due for ${dueSeconds} s, accepted in ${l.acceptMs} ms, first due ${l.leadMs} ms after the start): arrived ${l.arrived}, ` +
          `min ${l.min} ms, p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms, early ${l.early}, duplicates ${l.duplicates}; ` +
          `claim p50 ${l.claimP50} ms p99 ${l.claimP99} ms, first send p99 ${l.sendP99} ms${problemNote(l)}`,
      );
      console.log(`    cpu: ${formatCpu(l.cpu)}`);
      console.log(`    cpu ${formatCpuPer(l.cpu, l.arrived, 'delivery')}`);
      console.log(`    storage: ${l.storage}`);
    }
    if (phases.has('deliver')) {
      const d = (result.deliver = await deliver(cluster, dest));
      console.log(
        `  delivery: ${total} accepted in ${d.acceptMs} ms (${round((total / d.acceptMs) * 1000)}/s via /requests/batch); ` +
          `${d.arrived} delivered in ${d.deliveryMs} ms = ${round((d.arrived / d.deliveryMs) * 1000)} deliveries/s; ` +
          `duplicates ${d.duplicates}; read back succeeded ${d.succeeded}/${d.checked}${problemNote(d)}`,
      );
      console.log(`    cpu: ${formatCpu(d.cpu)}`);
      console.log(`    cpu ${formatCpuPer(d.cpu, d.arrived, 'delivered request, its accept included')}`);
      console.log(`    storage: ${d.storage}`);
    }
    for (const live of [false, true]) {
      if (!phases.has(live ? 'accept-live' : 'accept')) continue;
      const a = await accept(cluster, dest, live);
      if (live) result.acceptLive = a;
      else result.accept = a;
      console.log(
        `  POST /send ${live ? 'delivered at once' : 'delay=1h'} (${a.connections} connections): ${round(a.rps)} req/s, ` +
          `p50 ${a.p50} ms, p99 ${a.p99} ms, 202 ${a.accepted}, non-202 ${a.non202}, errors ${a.errors} [${a.statuses}]` +
          `${live ? `; delivered meanwhile ${a.delivered} (${round(a.delivered / seconds)}/s)` : ''}${problemNote(a)}`,
      );
      console.log(`    cpu: ${formatCpu(a.cpu)}`);
      if (!live) console.log(`    cpu ${formatCpuPer(a.cpu, a.accepted, 'accepted request')}`);
      console.log(`    storage: ${a.storage}`);
    }
    return result;
  });
}

await assertInfra();
// Four kinds of load, a quarter of the warm-up each.
if (warmUpSeconds > 0) await storageCeiling(warmUpSeconds / 4);
console.log(formatCeiling(await storageCeiling()));
const storageMeter = await StorageMeter.open();
const results: RunResult[] = [];
try {
  for (let k = 1; k <= warmUpRounds; k++) {
    console.log(`warm-up round ${k} of ${warmUpRounds}, unreported (accept with delay=1h, then delivered at once): ${await warmUp()}`);
  }
  for (const n of processCounts) results.push(await run(n));
} finally {
  await storageMeter.close();
}

/** Milliseconds of CPU the service side (Cassandra, Kafka, every Ferry process; not this process) spent per unit. */
const serviceMsPer = (u: CpuUse, units: number) =>
  (((coresOf(u, 'cassandra') + coresOf(u, 'kafka') + ferryCores(u)) * u.seconds * 1000) / units).toFixed(2);

const cpuCells = (u: CpuUse | undefined) =>
  u === undefined ? ['–', '–', '–', '–'] : [coresOf(u, 'cassandra').toFixed(2), coresOf(u, 'kafka').toFixed(2), ferryCores(u).toFixed(2), coresOf(u, 'bench').toFixed(2)];

if (phases.has('fixed-load') || phases.has('idle')) {
  printTable(
    `Fixed load: ${fixed.rate}/s offered for ${seconds} s (POST /requests round robin, each due ${fixed.dueAfterMs} ms after sending); idle: ${idleSeconds} s with no requests`,
    ['processes', 'offered/s', 'delivered/s', 'ferry ms CPU per delivery (all processes)', 'cassandra ms', 'kafka ms', 'lateness p50 ms', 'p99 ms', 'others cores', 'idle CPU per process (cores)', 'idle cassandra cores'],
    results.map((r) => {
      const f = r.fixedLoad;
      const per = f === undefined ? undefined : cpuPerDelivery(f.cpu, f.deliveries);
      const idleEach = r.idle === undefined ? '–' : r.idle.cpu.cores.filter(([name]) => name.startsWith('ferry#')).map(([, c]) => c.toFixed(3)).join(' / ');
      return [
        r.processes, f === undefined ? '–' : round(f.offered), f === undefined ? '–' : round(f.delivered), per?.ferry ?? '–', per?.cassandra ?? '–', per?.kafka ?? '–',
        f?.p50 ?? '–', f?.p99 ?? '–', f === undefined ? '–' : othersCores(f.cpu).toFixed(2), idleEach, r.idle === undefined ? '–' : coresOf(r.idle.cpu, 'cassandra').toFixed(3),
      ];
    }),
  );
}
if (phases.has('accept') || phases.has('accept-live')) {
  const rows = results.flatMap((r) =>
    (
      [
        ['delay=1h', r.accept],
        ['at once', r.acceptLive],
      ] as const
    ).flatMap(([mode, a]) =>
      a === undefined
        ? []
        : [[
            r.processes, mode, round(a.rps), a.p50, a.p99, a.non202, a.errors, mode === 'at once' ? round(a.delivered / seconds) : '–',
            mode === 'at once' ? '–' : serviceMsPer(a.cpu, a.accepted), ...cpuCells(a.cpu),
          ]],
    ),
  );
  printTable(
    `Accept: POST /send, ${seconds} s, autocannon over all processes (cores: average busy cores over the run)`,
    ['processes', 'delivery', 'req/s', 'p50 ms', 'p99 ms', 'non-202', 'errors', 'deliveries/s meanwhile', 'service CPU ms per accepted request', 'cassandra', 'kafka', 'ferry (all)', 'bench'],
    rows,
  );
}
if (phases.has('deliver')) {
  printTable(
    `Delivery: ${total} requests accepted via /requests/batch while delivering`,
    ['processes', 'accepted/s', 'deliveries/s', 'duplicates', 'succeeded', 'service CPU ms per delivered request (accept included)', 'cassandra', 'kafka', 'ferry (all)', 'bench'],
    results.flatMap((r) =>
      r.deliver === undefined
        ? []
        : [[
            r.processes, round((total / r.deliver.acceptMs) * 1000), round((r.deliver.arrived / r.deliver.deliveryMs) * 1000), r.deliver.duplicates,
            `${r.deliver.succeeded}/${r.deliver.checked}`, serviceMsPer(r.deliver.cpu, r.deliver.arrived), ...cpuCells(r.deliver.cpu),
          ]],
    ),
  );
}
if (phases.has('lateness')) {
  printTable(
    `Timer lateness: ${duePerSecond} due/s for ${dueSeconds} s (arrival at the destination − scheduled time, ms)`,
    ['processes', 'arrived', 'p50', 'p99', 'max', 'early', 'claim p50', 'claim p99', 'cassandra', 'kafka', 'ferry (all)', 'bench'],
    results.flatMap((r) =>
      r.lateness === undefined
        ? []
        : [[r.processes, r.lateness.arrived, r.lateness.p50, r.lateness.p99, r.lateness.max, r.lateness.early, r.lateness.claimP50, r.lateness.claimP99, ...cpuCells(r.lateness.cpu)]],
    ),
  );
}
