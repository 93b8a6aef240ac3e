/**
 * The `fixed-load` and `idle` phases of `distributed.ts`: what a steady offered load costs per delivered request
 * as processes are added, and what a process costs with nothing to do.
 *
 *  - fixed-load: `--rate` requests a second, each accepted on its own (`POST /requests`, round robin over the
 *    processes) and due `--due-after-ms` after it was sent, for `--lead-in-seconds` unreported and then
 *    `--seconds` measured. Per delivered request: CPU of all Ferry processes, of Cassandra and of Kafka, and
 *    Cassandra's reads and writes per table; lateness = arrival at the destination − due time. "others" is the
 *    machine's busy time that none of the measured processes spent (other people's work on a shared machine).
 *  - idle: the same deployment with no requests for `--idle-seconds`: each process's CPU and its busiest threads.
 */
import type { Destination, Exchange } from '../support/destination.js';
import { backendEnv } from '../support/deployment.js';
import { coresOf, type CpuUse } from './cpu-meter.js';
import { ferryCores, meterCluster, percentile, sleep, sortedFinite, type Cluster, type StorageMeter } from './distributed-cluster.js';
import { formatThreads, threadMeter } from './thread-meter.js';

export interface FixedLoadOptions {
  readonly rate: number;
  readonly seconds: number;
  readonly leadInSeconds: number;
  readonly dueAfterMs: number;
}

export interface FixedLoadResult {
  readonly offered: number;
  /** Deliveries a second, from the first measured request sent to the last one arrived. */
  readonly delivered: number;
  /** Measured requests that arrived. */
  readonly deliveries: number;
  readonly lost: number;
  readonly duplicates: number;
  readonly refused: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly early: number;
  readonly cpu: CpuUse;
  /** Cassandra's reads and writes per table, per delivered request. */
  readonly storage: string;
  readonly threads: string;
}

/** Machine cores busy that none of the metered processes account for. */
export function othersCores(u: CpuUse): number {
  const known = u.cores.reduce((a, [, c]) => a + (Number.isNaN(c) ? 0 : c), 0);
  return Math.max(0, u.machine * u.cpus - known);
}

/** Milliseconds of CPU of `part` per unit. */
export const msPer = (u: CpuUse, cores: number, units: number): string => ((cores * u.seconds * 1000) / units).toFixed(3);

export function cpuPerDelivery(u: CpuUse, delivered: number): { ferry: string; cassandra: string; kafka: string } {
  return {
    ferry: msPer(u, ferryCores(u), delivered),
    cassandra: msPer(u, coresOf(u, 'cassandra'), delivered),
    kafka: msPer(u, coresOf(u, 'kafka'), delivered),
  };
}

export async function fixedLoad(cluster: Cluster, dest: Destination, storageMeter: StorageMeter, o: FixedLoadOptions): Promise<FixedLoadResult> {
  const apis = cluster.processes.map((p) => p.api);
  const leadIn = Math.round(o.rate * o.leadInSeconds);
  const count = leadIn + Math.round(o.rate * o.seconds);
  const late = new Float64Array(count).fill(NaN);
  let duplicates = 0;
  let refused = 0;
  let measuredArrivals = 0;
  let lastArrival = 0;
  dest.on('/fixed', ({ request, res }: Exchange) => {
    const i = Number(/[?&]i=(\d+)/.exec(request.path)?.[1]);
    const at = Number(/[?&]at=(\d+)/.exec(request.path)?.[1]);
    if (Number.isNaN(late[i]!)) {
      late[i] = request.receivedAt - at;
      if (i >= leadIn) {
        measuredArrivals++;
        lastArrival = request.receivedAt;
      }
    } else duplicates++;
    res.writeHead(200).end();
  });
  const t0 = Date.now() + 200;
  const sent: Array<Promise<void>> = [];
  let meter: { stop(): CpuUse } | null = null;
  let threads: Array<{ stop(): ReturnType<ReturnType<typeof threadMeter>['stop']> }> = [];
  let storage: { stop(calls?: number): Promise<string> } | null = null;
  let measuredFrom = 0;
  const keyspace = backendEnv(cluster.dataDir).FERRY_CASSANDRA_KEYSPACE!;
  // Paced by the clock, not by answers: the offered rate holds whatever the latency.
  for (let i = 0; i < count; i++) {
    const sendAt = t0 + Math.floor((i * 1000) / o.rate);
    const wait = sendAt - Date.now();
    if (wait > 0) await sleep(wait);
    if (i === leadIn) {
      measuredFrom = Date.now();
      storage = await storageMeter.start(keyspace);
      meter = meterCluster(cluster);
      threads = cluster.processes.map((p) => threadMeter(p.ferry.child.pid));
    }
    const due = Math.max(Date.now(), sendAt) + o.dueAfterMs;
    sent.push(
      apis[i % apis.length]!
        .call('POST', '/requests', { json: { url: `${dest.url}/fixed?i=${i}&at=${due}`, deliver_at: new Date(due).toISOString() } })
        .then(
          (r) => void (r.status === 202 || (i >= leadIn && refused++)),
          () => void (i >= leadIn && refused++),
        ),
    );
    if (sent.length >= 4096) await Promise.all(sent.splice(0));
  }
  await Promise.all(sent);
  const expected = count - leadIn;
  // The measurement ends when the measured requests have arrived (or 60 s after the last was due).
  const until = Date.now() + o.dueAfterMs + 60_000;
  while (measuredArrivals < expected - refused && Date.now() < until) await sleep(20);
  const cpu = meter!.stop();
  const perThread = threads.map((t, k) => `ferry#${k + 1}: ${formatThreads(t.stop(), 0.01)}`).join('; ');
  const delivered = measuredArrivals;
  const sorted = sortedFinite(late.subarray(leadIn));
  return {
    offered: expected / o.seconds,
    delivered: (delivered * 1000) / Math.max(1, lastArrival - measuredFrom),
    deliveries: delivered,
    lost: expected - refused - delivered,
    duplicates,
    refused,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    early: sorted.filter((l) => l < 0).length,
    cpu,
    storage: await storage!.stop(Math.max(1, delivered)),
    threads: perThread,
  };
}

export interface IdleResult {
  readonly cpu: CpuUse;
  readonly threads: string;
  readonly storage: string;
}

export async function idle(cluster: Cluster, storageMeter: StorageMeter, seconds: number): Promise<IdleResult> {
  const storage = await storageMeter.start(backendEnv(cluster.dataDir).FERRY_CASSANDRA_KEYSPACE!);
  const meter = meterCluster(cluster);
  const threads = cluster.processes.map((p) => threadMeter(p.ferry.child.pid));
  await sleep(seconds * 1000);
  const cpu = meter.stop();
  return {
    cpu,
    threads: threads.map((t, k) => `ferry#${k + 1}: ${formatThreads(t.stop(), 0.002)}`).join('; '),
    storage: await storage.stop(),
  };
}
