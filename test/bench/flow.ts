/**
 * Flow-control benchmarks, destination on loopback (HTTPS):
 *  - key-rate: one flow key limited to `--rate` per second (default 500, Cloud Tasks' per-queue ceiling) with a
 *    backlog of `--seconds` (60) of work accepted while it delivers; per 1 s window after the first two seconds
 *    (the burst, and the accept catching up): the mean, the lowest and the highest window, and the mean over the
 *    whole steady span. `--processes 1,2` runs it on Cassandra + Kafka with that many processes instead.
 *  - fairness: an unlimited queue's deliveries/s alone (`--requests`, 30,000); then with `--keys` (10,000) flow
 *    keys each limited to 1/s and `--per-key` (3) requests each accepted at the same time (the keys' own deliveries
 *    share the machine); then after as many keys limited to 1 an hour got their requests (each key's first
 *    delivered, the rest held for hours), and after as many paused keys got theirs (all held): what held requests
 *    take from others once they are held.
 *  - memory: the service's RSS with no key, then after `--keys` keys were configured and each sent one request
 *    (their budgets live and idle); and, in this process (run with NODE_OPTIONS=--expose-gc), the heap a delivering
 *    process's `BudgetGate` holds for that many configured keys each with an idle live budget.
 *
 *   npm run build && NODE_OPTIONS=--expose-gc npx tsx test/bench/flow.ts [--only key-rate|fairness|memory|heap] [--rate 500] [--seconds 60]
 *     [--processes 1,2] [--keys 10000] [--per-key 3] [--requests 30000]
 */
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const processCounts = args.get('processes')?.split(',').map(Number) ?? null;
// The backend is chosen when the test support is loaded: set it first.
if (processCounts !== null) process.env.FERRY_TEST_BACKEND = 'cassandra';

const { readFileSync } = await import('node:fs');
const { Api } = await import('../support/api-client.js');
const { createProject, startFerry } = await import('../support/ferry-process.js');
const { startReceiver } = await import('./receiver.js');
const { startCluster } = await import('./distributed-cluster.js');
const { dropDeployments } = await import('../support/deployment.js');
type ApiT = InstanceType<typeof Api>;

const only = args.get('only');
const rate = Number(args.get('rate') ?? 500);
const seconds = Number(args.get('seconds') ?? 60);
const keyCount = Number(args.get('keys') ?? 10_000);
const perKey = Number(args.get('per-key') ?? 3);
const unlimited = Number(args.get('requests') ?? 30_000);

async function check(res: Promise<{ status: number; body: { error: unknown } }>, expected: number): Promise<void> {
  const r = await res;
  if (r.status !== expected) throw new Error(`answered ${r.status}: ${JSON.stringify(r.body.error)}`);
}

/** Accepts `items` in batches of 100, `concurrency` batches at a time, round robin over `apis`. */
async function acceptAll(apis: readonly ApiT[], items: ReadonlyArray<Record<string, unknown>>, concurrency = 8): Promise<void> {
  let next = 0;
  let turn = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const start = next;
        next += 100;
        const api = apis[turn++ % apis.length]!;
        await check(api.call('POST', '/requests/batch', { json: { requests: items.slice(start, start + 100) }, headers: { 'idempotency-key': `flow-${start}-${Math.random()}` } }), 202);
      }
    }),
  );
}

async function forEachBounded(count: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await fn(next++);
  }));
}

async function waitFor(check: () => boolean, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('deadline passed');
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
interface Deployment {
  readonly dest: Receiver;
  readonly apis: ApiT[];
  readonly pids: number[];
  stop(): Promise<void>;
}

/** One deployment: embedded, or `processes` distributed processes. */
async function deployment(processes: number | null): Promise<Deployment> {
  const dest = await startReceiver();
  const env = { FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: dest.certFile, FERRY_DELIVERY_MAX_PER_HOST: '256' };
  if (processes === null) {
    const ferry = await startFerry({ env });
    const { apiKey } = await createProject(ferry.dataDir, { monthlyAllowance: 1_000_000_000 });
    return {
      dest,
      apis: [new Api(ferry.baseUrl, apiKey)],
      pids: [ferry.child.pid!],
      async stop() {
        await ferry.stop();
        await dest.close();
      },
    };
  }
  const cluster = await startCluster(processes, env);
  await cluster.waitForCoverage();
  return {
    dest,
    apis: cluster.processes.map((p) => p.api),
    pids: cluster.processes.map((p) => p.ferry.child.pid!),
    async stop() {
      await cluster.stop();
      await dest.close();
      await dropDeployments();
    },
  };
}

async function keyRate(processes: number | null): Promise<void> {
  const d = await deployment(processes);
  try {
    const api = d.apis[0]!;
    await check(api.call('PUT', '/flow-keys/k', { json: { rate: { limit: rate, period: '1s' } } }), 200);
    // Seen by every process (they read configurations every 500 ms).
    await new Promise((r) => setTimeout(r, 1_500));
    const count = rate * (seconds + 2);
    const items = Array.from({ length: count }, (_, i) => ({ url: `${d.dest.url}/k`, body: { i }, flow_keys: ['k'] }));
    await acceptAll(d.apis, items);
    await waitFor(() => d.dest.arrivalsAt('/k').length >= count, (seconds + 60) * 1000);
    const at = d.dest.arrivalsAt('/k').map((a) => a.receivedAt).sort((a, b) => a - b);
    const from = at[0]! + 2_000;
    const steady = at.filter((t) => t >= from);
    const windows: number[] = [];
    for (let w = from; w + 1_000 <= steady.at(-1)!; w += 1_000) windows.push(steady.filter((t) => t >= w && t < w + 1_000).length);
    const span = (steady.at(-1)! - steady[0]!) / 1000;
    const sorted = [...windows].sort((a, b) => a - b);
    const where = processes === null ? 'embedded' : `distributed, ${processes} process${processes > 1 ? 'es' : ''}`;
    console.log(
      `key-rate (${where}): key at ${rate}/s, ${count} requests; steady ${steady.length} over ${span.toFixed(1)} s = ${(steady.length / span).toFixed(1)}/s; ` +
        `1 s windows: ${windows.length}, mean ${(windows.reduce((a, b) => a + b, 0) / windows.length).toFixed(1)}, min ${sorted[0]}, max ${sorted.at(-1)}; ` +
        `first 2 s: ${at.length - steady.length}`,
    );
  } finally {
    await d.stop();
  }
}

/** Deliveries/s of `requests` unlimited requests, from the first arrival to the last; `beside` accepted with them. */
async function unlimitedRun(d: Deployment, path: string, beside: ReadonlyArray<Record<string, unknown>> = []): Promise<number> {
  const items = Array.from({ length: unlimited }, (_, i) => ({ url: `${d.dest.url}${path}`, body: { i } }));
  await Promise.all([acceptAll(d.apis, items, 4), beside.length > 0 ? acceptAll(d.apis, beside, 4) : null]);
  await waitFor(() => d.dest.arrivalsAt(path).length >= unlimited, 300_000);
  const at = d.dest.arrivalsAt(path).map((a) => a.receivedAt).sort((a, b) => a - b);
  return (unlimited / (at.at(-1)! - at[0]!)) * 1000;
}

async function configureKeys(api: ApiT, prefix: string, body: unknown, action: 'put' | 'pause'): Promise<void> {
  await forEachBounded(keyCount, 16, (i) =>
    action === 'put'
      ? check(api.call('PUT', `/flow-keys/${prefix}${i}`, { json: body }), 200)
      : check(api.call('POST', `/flow-keys/${prefix}${i}/pause`), 200),
  );
}

async function fairness(): Promise<void> {
  const d = await deployment(null);
  try {
    const api = d.apis[0]!;
    await unlimitedRun(d, '/warm');
    const alone = await unlimitedRun(d, '/alone');
    console.log(`fairness: unlimited queue alone ${alone.toFixed(0)} deliveries/s`);

    await configureKeys(api, 'r', { rate: { limit: 1, period: '1s' } }, 'put');
    await new Promise((r) => setTimeout(r, 1_000));
    const keyed = Array.from({ length: keyCount * perKey }, (_, i) => ({ url: `${d.dest.url}/rated`, flow_keys: [`r${i % keyCount}`], queue: 'keyed' }));
    const startedAt = Date.now();
    const beside = await unlimitedRun(d, '/beside-rated', keyed);
    const unlimitedDone = Date.now();
    await waitFor(() => d.dest.arrivalsAt('/rated').length >= keyed.length, 300_000);
    const keyedAt = d.dest.arrivalsAt('/rated').map((a) => a.receivedAt);
    const keyedDuring = keyedAt.filter((t) => t <= unlimitedDone).length;
    console.log(
      `  with ${keyCount} keys at 1/s, ${perKey} requests each, accepted alongside: ${beside.toFixed(0)} deliveries/s (${((beside / alone) * 100).toFixed(0)} %); ` +
        `keyed delivered meanwhile ${keyedDuring}, all ${keyed.length} by ${((Math.max(...keyedAt) - startedAt) / 1000).toFixed(1)} s`,
    );

    await configureKeys(api, 'h', { rate: { limit: 1, period: '1h' } }, 'put');
    await heldThenUnlimited(d, alone, 'h', '/hourly', keyCount, 'keys at 1/h');
    await configureKeys(api, 'p', null, 'pause');
    await heldThenUnlimited(d, alone, 'p', '/paused', 0, 'paused keys');
    const paused = await api.call<{ waiting: { paused: number } }>('GET', '/flow-keys/p0');
    console.log(`  key p0 reads waiting ${JSON.stringify(paused.body.data?.waiting)}; arrivals under paused keys: ${d.dest.arrivalsAt('/paused').length}`);
  } finally {
    await d.stop();
  }
}

/**
 * Requests under keys `prefix`0… accepted and held (`delivered` of them go out first), then the unlimited queue's
 * run: what the held requests cost the others once held.
 */
async function heldThenUnlimited(d: Deployment, alone: number, prefix: string, path: string, delivered: number, what: string): Promise<void> {
  await new Promise((r) => setTimeout(r, 1_000));
  const items = Array.from({ length: keyCount * perKey }, (_, i) => ({ url: `${d.dest.url}${path}`, flow_keys: [`${prefix}${i % keyCount}`], queue: 'held' }));
  const start = Date.now();
  await acceptAll(d.apis, items);
  // Held once each: every key reads all its requests but the delivered ones waiting.
  await waitFor(() => d.dest.arrivalsAt(path).length >= delivered, 120_000);
  const api = d.apis[0]!;
  for (;;) {
    const key = await api.call<{ waiting: { rate: number; paused: number } }>('GET', `/flow-keys/${prefix}${keyCount - 1}`);
    const w = key.body.data.waiting;
    if (w.rate + w.paused >= perKey - (delivered > 0 ? 1 : 0)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const heldIn = (Date.now() - start) / 1000;
  const rate = await unlimitedRun(d, `/after-${prefix}`);
  console.log(
    `  after ${keyCount} ${what} got ${items.length} requests (${delivered} delivered, the rest held, in ${heldIn.toFixed(1)} s): ` +
      `${rate.toFixed(0)} deliveries/s (${((rate / alone) * 100).toFixed(0)} %)`,
  );
}

/** The heap a `BudgetGate` holds for `keyCount` configured keys with an idle live budget each, measured here. */
async function gateHeap(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    console.log('  (run with NODE_OPTIONS=--expose-gc for the heap of the keys\' state)');
    return;
  }
  const settle = (): number => {
    for (let i = 0; i < 4; i++) gc();
    return process.memoryUsage().heapUsed;
  };
  // Warm: the modules and the code paths below, so their one-time allocations fall outside the measurement.
  await measuredGate(10);
  const before = settle();
  const gate = await measuredGate(keyCount);
  const after = settle();
  console.log(`  heap of a BudgetGate with ${keyCount} configured keys, each with an idle live budget: ${((after - before) / 1024 / 1024).toFixed(1)} MB (${Math.round((after - before) / keyCount)} bytes a key)`);
  gate.stop();
}

/** A gate holding `count` configured keys, each with a live budget that has seen one attempt. */
async function measuredGate(count: number) {
  const { BudgetGate } = await import('../../src/workers/delivery/budget-gate.js');
  const { systemClock } = await import('../../src/domain/clock.js');
  const configs = Array.from({ length: count }, (_, i) => ({
    projectId: 'prj_bench', kind: 'flow_key' as const, name: `k${i}`, rate: { limit: 1, periodMs: 1_000, burst: 1 }, concurrency: 5, adaptive: true, paused: false, updatedAt: 1,
  }));
  const gate = new BudgetGate({ budgets: { changedSince: async () => configs } as never, clock: systemClock });
  await gate.start();
  gate.stop();
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const budgets = gate.budgetsOf({ projectId: 'prj_bench', queue: 'default', flowKeys: [`k${i}`] });
    gate.started(`r${i}`, budgets, now);
    gate.exchanged(budgets, 10);
  }
  return gate;
}

function memoryOf(pid: number): { rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rssMb: Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024 };
}

async function memory(): Promise<void> {
  const d = await deployment(null);
  try {
    const api = d.apis[0]!;
    await unlimitedRun(d, '/warm');
    const before = memoryOf(d.pids[0]!);
    await configureKeys(api, 'm', { rate: { limit: 1, period: '1s' }, concurrency: 5 }, 'put');
    const items = Array.from({ length: keyCount }, (_, i) => ({ url: `${d.dest.url}/idle`, flow_keys: [`m${i}`] }));
    await acceptAll(d.apis, items);
    await waitFor(() => d.dest.arrivalsAt('/idle').length >= keyCount, 120_000);
    const after = memoryOf(d.pids[0]!);
    console.log(`memory: RSS ${before.rssMb.toFixed(0)} MB before, ${after.rssMb.toFixed(0)} MB with ${keyCount} configured keys each used once (${(after.rssMb - before.rssMb).toFixed(1)} MB)`);
    await gateHeap();
  } finally {
    await d.stop();
  }
}

if (only === undefined || only === 'key-rate') {
  for (const p of processCounts ?? [null]) await keyRate(p);
}
if (processCounts === null && (only === undefined || only === 'fairness')) await fairness();
if (processCounts === null && (only === undefined || only === 'memory')) await memory();
if (only === 'heap') await gateHeap();
