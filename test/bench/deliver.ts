/**
 * Delivery benchmarks on the embedded default, destination on loopback (HTTPS):
 *  - throughput: requests accepted in batches while the engine delivers them; deliveries/s from the first to
 *    the last delivery, and every request checked as succeeded afterwards;
 *  - a bare undici client against the same destination, for the ceiling of this machine;
 *  - timer lateness: requests falling due at a steady rate (default 1,000 per second for 10 s), lateness =
 *    arrival at the destination minus scheduled time; nothing may arrive early. The same stream runs for a
 *    warm-up first (default 2 s), reported on its own: it holds the cold start (first connections, first runs
 *    of the delivery code), which a service that has been running does not pay again.
 *  - bursts (`--only burst`, not part of the default run): `--burst-size` (10,000) requests due at one instant,
 *    `--bursts` (4) such instants `--burst-every` (15) seconds apart, all accepted ahead: what a minute boundary
 *    shared by thousands of schedules asks of delivery, without the schedules. The first burst is a warm-up (the
 *    delivery code still cold); the others come after an idle spell longer than the destination keeps idle
 *    connections (5 s, as Node servers do), so each starts without open connections, like the schedules' minutes.
 *    Per burst: lateness (arrival − instant) p50/p99/max, the first arrival, early and duplicate arrivals, and the
 *    CPU of Ferry, of this process (the destination) and of everything else on the machine from 0.5 s before the
 *    instant to the last arrival.
 *
 *   npm run build && npx tsx test/bench/deliver.ts [--requests 30000] [--due-per-second 1000] [--due-seconds 10] [--warmup-seconds 2] [--per-host 256]
 *     [--only bare|throughput|lateness|burst] [--burst-size 10000] [--bursts 4] [--burst-every 15]
 *     [--capture on|off] [--response-bytes 0] [--response-kind json|random]   (the project's response body capture;
 *     the receiver's answer size and kind)
 */
import { Agent, request } from 'undici';
import { Api } from '../support/api-client.js';
import { startReceiver, type Receiver } from './receiver.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { coresOf, cpuMeter, formatCpu } from './cpu-meter.js';
import { machineLoad, otherCores } from './schedules-measure.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const total = Number(args.get('requests') ?? 30_000);
const duePerSecond = Number(args.get('due-per-second') ?? 1000);
const dueSeconds = Number(args.get('due-seconds') ?? 10);
const warmupSeconds = Number(args.get('warmup-seconds') ?? 2);
const perHost = args.get('per-host') ?? '256';
const only = args.get('only');
const burstSize = Number(args.get('burst-size') ?? 10_000);
const bursts = Number(args.get('bursts') ?? 4);
const burstEveryMs = Number(args.get('burst-every') ?? 15) * 1000;
const capture = (args.get('capture') ?? 'on') === 'on';
const responseBytes = Number(args.get('response-bytes') ?? 0);
const responseKind = args.get('response-kind') === 'random' ? 'random' : 'json';

async function setup(dest: Receiver): Promise<{ ferry: FerryProcess; api: Api }> {
  const ferry = await startFerry({
    // Every request goes to the one loopback destination, so the per-host limit is the one that binds.
    env: { FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: dest.certFile, FERRY_DELIVERY_MAX_PER_HOST: perHost },
  });
  const { apiKey } = await createProject(ferry.dataDir, { monthlyAllowance: 1_000_000_000, captureResponseBodies: capture });
  return { ferry, api: new Api(ferry.baseUrl, apiKey) };
}

async function acceptAll(api: Api, items: Array<Record<string, unknown>>, concurrency = 8): Promise<string[]> {
  const ids: string[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const start = next;
        next += 100;
        const res = await api.call<{ requests: Array<{ id: string }> }>('POST', '/requests/batch', {
          json: { requests: items.slice(start, start + 100) },
          headers: { 'idempotency-key': `bench-${start}-${Math.random()}` },
        });
        if (res.status !== 202) throw new Error(`batch answered ${res.status}: ${JSON.stringify(res.body.error)}`);
        res.body.data.requests.forEach((r, i) => (ids[start + i] = r.id));
      }
    }),
  );
  return ids;
}

async function waitUntil(check: () => boolean, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('deadline passed');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function countSucceeded(api: Api, ids: readonly string[]): Promise<number> {
  let ok = 0;
  for (let i = 0; i < ids.length; i += 97) {
    const res = await api.call<{ status: string }>('GET', `/requests/${ids[i]}`);
    if (res.body.data.status === 'succeeded') ok++;
  }
  return ok === Math.ceil(ids.length / 97) ? ids.length : ok;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The same destination driven by a bare undici client with the same concurrency: the ceiling of this machine. */
async function bareClient(): Promise<void> {
  const dest = await startReceiver();
  const agent = new Agent({ connections: Number(perHost), connect: { ca: dest.cert } });
  try {
    let done = 0;
    const start = Date.now();
    await Promise.all(
      Array.from({ length: Number(perHost) }, async () => {
        while (done < total) {
          done++;
          const res = await request(`${dest.url}/t`, { method: 'POST', body: '{"i":1}', dispatcher: agent });
          await res.body.dump();
        }
      }),
    );
    const ms = Date.now() - start;
    console.log(`bare undici client: ${total} requests in ${ms} ms = ${Math.round((total / ms) * 1000)} requests/s`);
  } finally {
    await agent.close();
    await dest.close();
  }
}

async function throughput(): Promise<void> {
  const dest = await startReceiver(responseBytes, undefined, responseKind);
  const { ferry, api } = await setup(dest);
  try {
    const items = Array.from({ length: total }, (_, i) => ({ url: `${dest.url}/t`, body: { i }, retry: { max_attempts: 3 } }));
    const acceptStart = Date.now();
    const meter = cpuMeter([['ferry', ferry.child.pid], ['bench', process.pid]]);
    const ids = await acceptAll(api, items);
    const acceptMs = Date.now() - acceptStart;
    await waitUntil(() => dest.arrivalsAt('/t').length >= total, 300_000);
    const cpu = meter.stop();
    const got = dest.arrivalsAt('/t');
    const first = got[0]!.receivedAt;
    const last = got.at(-1)!.receivedAt;
    // Sampled reads: every 97th request must be recorded as succeeded.
    const checked = await countSucceeded(api, ids);
    console.log(
      `throughput: ${total} requests accepted in ${acceptMs} ms (${Math.round((total / acceptMs) * 1000)}/s); ` +
        `delivered ${got.length} in ${last - first} ms = ${Math.round((got.length / (last - first)) * 1000)} deliveries/s; ` +
        `sampled succeeded: ${checked === total ? 'all' : checked}`,
    );
    // CPU time per request moves less from run to run than the rate does on a machine shared with the receiver.
    const perRequest = (name: string) => Math.round((coresOf(cpu, name) * cpu.seconds * 1e6) / total);
    console.log(
      `  cpu: ${formatCpu(cpu)}, of which others ${otherCores(cpu).toFixed(2)} cores; per request (accept + delivery): ferry ${perRequest('ferry')} µs, bench ${perRequest('bench')} µs`,
    );
  } finally {
    await ferry.stop();
    await dest.close();
  }
}

async function lateness(): Promise<void> {
  const dest = await startReceiver();
  const { ferry, api } = await setup(dest);
  try {
    const count = duePerSecond * (warmupSeconds + dueSeconds);
    const t0 = Date.now() + 5_000 + count / 5; // far enough ahead to accept everything first
    const measuredFrom = t0 + warmupSeconds * 1000;
    const dueAt = Array.from({ length: count }, (_, i) => t0 + Math.floor((i * 1000) / duePerSecond));
    const items = dueAt.map((at) => ({ url: `${dest.url}/due`, deliver_at: new Date(at).toISOString() }));
    const ids = await acceptAll(api, items);
    const scheduled = new Map(ids.map((id, i) => [id, dueAt[i]!]));
    await waitUntil(() => dest.arrivalsAt('/due').length >= count, t0 - Date.now() + 120_000);
    const arrivals = dest.arrivalsAt('/due').map((r) => ({ at: scheduled.get(r.requestId!)!, received: r.receivedAt }));
    const late = (from: number, to: number) =>
      arrivals.filter((a) => a.at >= from && a.at < to).map((a) => a.received - a.at).sort((a, b) => a - b);
    const summary = (l: number[]) =>
      `min ${l[0]} ms, p50 ${percentile(l, 50)} ms, p99 ${percentile(l, 99)} ms, max ${l.at(-1)} ms, early: ${l.filter((x) => x < 0).length}`;
    // Claim and send lateness of the measured part: the engine's started_at and the first attempt's started_at.
    const claimLate: number[] = [];
    const sendLate: number[] = [];
    const measured = ids.filter((id) => scheduled.get(id)! >= measuredFrom);
    for (let i = 0; i < measured.length; i += Math.max(1, Math.floor(measured.length / 500))) {
      const id = measured[i]!;
      const d = await api.call<{ started_at: string; attempts: Array<{ started_at: string }> }>('GET', `/requests/${id}`);
      claimLate.push(Date.parse(d.body.data.started_at) - scheduled.get(id)!);
      sendLate.push(Date.parse(d.body.data.attempts[0]!.started_at) - scheduled.get(id)!);
    }
    claimLate.sort((a, b) => a - b);
    sendLate.sort((a, b) => a - b);
    if (warmupSeconds > 0) console.log(`warm-up lateness (first ${warmupSeconds} s, cold start): ${summary(late(t0, measuredFrom))}`);
    console.log(`claim lateness (sampled ${claimLate.length}): p50 ${percentile(claimLate, 50)} ms, p99 ${percentile(claimLate, 99)} ms, max ${claimLate.at(-1)} ms`);
    console.log(`send lateness (sampled ${sendLate.length}): p50 ${percentile(sendLate, 50)} ms, p99 ${percentile(sendLate, 99)} ms, max ${sendLate.at(-1)} ms`);
    console.log(`timer lateness (${duePerSecond}/s due for ${dueSeconds} s after the warm-up): ${summary(late(measuredFrom, Infinity))}`);
  } finally {
    await ferry.stop();
    await dest.close();
  }
}

/** Bursts of requests due at one instant each; see the top of the file. */
async function burst(): Promise<void> {
  const dest = await startReceiver();
  const { ferry, api } = await setup(dest);
  try {
    const count = burstSize * bursts;
    const t0 = Math.ceil((Date.now() + 5_000 + count / 5) / 1000) * 1000;
    const instants = Array.from({ length: bursts }, (_, k) => t0 + k * burstEveryMs);
    const items = instants.flatMap((at, k) => Array.from({ length: burstSize }, () => ({ url: `${dest.url}/burst${k}`, deliver_at: new Date(at).toISOString() })));
    const acceptStart = Date.now();
    await acceptAll(api, items);
    console.log(`${count} requests accepted in ${Date.now() - acceptStart} ms, ${t0 - Date.now()} ms before the first instant`);
    for (const [k, at] of instants.entries()) {
      const path = `/burst${k}`;
      await new Promise((r) => setTimeout(r, at - 600 - Date.now()));
      const load = machineLoad();
      await new Promise((r) => setTimeout(r, at - 500 - Date.now()));
      const meter = cpuMeter([['ferry', ferry.child.pid], ['bench', process.pid]]);
      // A count, not a filter of every arrival so far: this process is the destination, and its CPU counts.
      const before = dest.count();
      await waitUntil(() => dest.count() - before >= burstSize, burstEveryMs - 1_000);
      const cpu = meter.stop();
      const got = dest.arrivalsAt(path);
      const late = got.map((a) => a.receivedAt - at).sort((a, b) => a - b);
      const unique = new Set(got.map((a) => a.requestId)).size;
      console.log(
        `burst ${k + 1}${k === 0 ? ' (warm-up)' : ''} at ${new Date(at).toISOString()}: ${got.length} arrivals; lateness p50 ${percentile(late, 50)} ms, ` +
          `p99 ${percentile(late, 99)} ms, max ${late.at(-1)} ms, first ${late[0]} ms; early ${late.filter((x) => x < 0).length}, duplicates ${got.length - unique}`,
      );
      console.log(
        `  from 0.5 s before the instant to the last arrival (${cpu.seconds.toFixed(1)} s): ${formatCpu(cpu)}, of which others ${otherCores(cpu).toFixed(2)} cores; ` +
          `ms CPU per request: ferry ${((coresOf(cpu, 'ferry') * cpu.seconds * 1000) / burstSize).toFixed(2)}, bench ${((coresOf(cpu, 'bench') * cpu.seconds * 1000) / burstSize).toFixed(2)}`,
      );
      console.log(`  machine just before: ${load}`);
    }
  } finally {
    await ferry.stop();
    await dest.close();
  }
}

// The machine is shared: what else ran beside the measurement is part of every figure.
console.log(`machine at the start: ${machineLoad()}`);
if (only === 'burst') await burst();
if (only === undefined || only === 'bare') await bareClient();
if (only === undefined || only === 'throughput') await throughput();
if (only === undefined || only === 'lateness') await lateness();
console.log(`machine at the end: ${machineLoad()}`);
