/**
 * Shared by the distributed benchmarks: several `ferry serve` processes over one Cassandra + Kafka deployment,
 * shard coverage from their logs, CPU use of every process taking part, and result formatting.
 * `distributed-env.ts` must be imported before this module.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CassandraSession } from '../../src/adapters/cassandra/session.js';
import { Api } from '../support/api-client.js';
import { TEST_BACKEND, TEST_SHARDS } from '../support/deployment.js';
import { createProject, newDataDir, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { infra, isInfraUp } from '../support/infra.js';
import { cpuMeter, type CpuUse } from './cpu-meter.js';

export function parseArgs(): Map<string, string> {
  const args = new Map<string, string>();
  for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
  return args;
}

export async function assertInfra(): Promise<void> {
  if (TEST_BACKEND !== 'cassandra') throw new Error('import ./distributed-env.js before anything that loads test/support/deployment.ts');
  if (!(await isInfraUp())) {
    throw new Error(`Cassandra (${infra.cassandra.contactPoint}) or Kafka (${infra.kafka.brokers.join(',')}) is not running: bash test/infra/infra.sh up`);
  }
}

/** What one service process said on stderr that matters to a measurement; only counters and the last problem. */
export interface ProcessLog {
  /** Shards of the last completed assignment; empty while a rebalance is under way. */
  owned: readonly number[];
  /** Completed assignments ("shards owned") and their losses ("shards released"). */
  assignments: number;
  releases: number;
  lastOwnershipChangeAt: number;
  warnings: number;
  errors: number;
  lastProblem: string | null;
}

export interface ServiceProcess {
  readonly ferry: FerryProcess;
  readonly api: Api;
  readonly log: ProcessLog;
}

export interface Cluster {
  readonly dataDir: string;
  readonly projectId: string;
  readonly apiKey: string;
  readonly processes: readonly ServiceProcess[];
  /** Waits until the processes together own every shard, each owns some, and nothing changed for a moment. */
  waitForCoverage(deadlineMs?: number): Promise<number>;
  /** Ownership changes and logged problems over all processes, for "did anything happen during this phase". */
  counters(): { assignments: number; releases: number; warnings: number; errors: number; lastProblem: string | null };
  stop(): Promise<void>;
}

/** Longest partial stderr line kept while waiting for its end. */
const MAX_PARTIAL_LINE = 64 * 1024;

function follow(ferry: FerryProcess): ProcessLog {
  const state: ProcessLog = { owned: [], assignments: 0, releases: 0, lastOwnershipChangeAt: Date.now(), warnings: 0, errors: 0, lastProblem: null };
  let partial = '';
  const read = (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    if (partial.length > MAX_PARTIAL_LINE) partial = '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      let entry: { level?: string; msg?: string; owned?: number[] };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      if (entry.msg === 'shards owned') {
        state.owned = entry.owned ?? [];
        state.assignments++;
        state.lastOwnershipChangeAt = Date.now();
      } else if (entry.msg === 'shards released') {
        state.owned = [];
        state.releases++;
        state.lastOwnershipChangeAt = Date.now();
      }
      if (entry.level === 'warn') state.warnings++;
      if (entry.level === 'error') state.errors++;
      if (entry.level === 'warn' || entry.level === 'error') state.lastProblem = line.slice(0, 500);
    }
  };
  ferry.followOutput(read);
  return state;
}

/**
 * Starts `count` processes on one fresh deployment (they share its data directory) and creates a project with a
 * practically unlimited allowance. The schema is created once, before any process starts.
 */
export async function startCluster(count: number, env: Record<string, string>): Promise<Cluster> {
  const dataDir = newDataDir();
  const { projectId, apiKey } = await createProject(dataDir, { monthlyAllowance: 1_000_000_000 });
  const started = await Promise.allSettled(Array.from({ length: count }, () => startFerry({ dataDir, env })));
  const ferries = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(ferries.map((f) => f.stop()));
    throw (failed as PromiseRejectedResult).reason;
  }
  const processes = ferries.map((ferry) => ({ ferry, api: new Api(ferry.baseUrl, apiKey), log: follow(ferry) }));
  const sum = () => {
    let assignments = 0, releases = 0, warnings = 0, errors = 0;
    let lastProblem: string | null = null;
    for (const p of processes) {
      assignments += p.log.assignments;
      releases += p.log.releases;
      warnings += p.log.warnings;
      errors += p.log.errors;
      lastProblem = p.log.lastProblem ?? lastProblem;
    }
    return { assignments, releases, warnings, errors, lastProblem };
  };
  return {
    dataDir,
    projectId,
    apiKey,
    processes,
    async waitForCoverage(deadlineMs = 90_000) {
      const start = Date.now();
      const shardsEach = Math.min(1, Math.floor(TEST_SHARDS / count));
      for (;;) {
        const union = new Set(processes.flatMap((p) => p.log.owned));
        const settled = processes.every((p) => p.log.owned.length >= shardsEach && Date.now() - p.log.lastOwnershipChangeAt > 1_500);
        if (union.size === TEST_SHARDS && settled) return Date.now() - start;
        if (Date.now() - start > deadlineMs) {
          throw new Error(`shards not covered after ${deadlineMs} ms: ${processes.map((p) => `[${p.log.owned.join(',')}]`).join(' ')}`);
        }
        await sleep(100);
      }
    },
    counters: sum,
    async stop() {
      await Promise.all(processes.map((p) => p.ferry.stop()));
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Sorted copy without NaN (entries never filled in). */
export function sortedFinite(values: ArrayLike<number>): Float64Array {
  const out = Float64Array.from(values).filter((v) => !Number.isNaN(v));
  return out.sort();
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `fn` over 0..count-1 with at most `concurrency` at once. */
export async function forEachBounded(count: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

// ---- CPU use of the processes that share the machine ----

/**
 * The Cassandra and Kafka JVMs started by test/infra/infra.sh, found by the marker on their command line: the
 * pair of `FERRY_INFRA_DIR` (default test/.infra) when it runs, otherwise any.
 */
export function infraPids(): { cassandra: number | null; kafka: number | null } {
  const dir = process.env.FERRY_INFRA_DIR ?? resolve(import.meta.dirname, '../.infra');
  const exact: Record<string, number> = {};
  const any: Record<string, number> = {};
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    for (const service of ['cassandra', 'kafka']) {
      if (cmd.includes(`-Dferry.infra=${service}@${dir}\0`)) exact[service] = Number(entry);
      else if (cmd.includes(`-Dferry.infra=${service}@`)) any[service] = Number(entry);
    }
  }
  return { cassandra: exact.cassandra ?? any.cassandra ?? null, kafka: exact.kafka ?? any.kafka ?? null };
}

/** Every process of a run: the JVMs, each service process, and this load-generating process. */
export function meterCluster(cluster: Cluster | null): { stop(): CpuUse } {
  const { cassandra, kafka } = infraPids();
  const targets: Array<readonly [string, number | null | undefined]> = [['cassandra', cassandra], ['kafka', kafka]];
  cluster?.processes.forEach((p, i) => targets.push([`ferry#${i + 1}`, p.ferry.child.pid]));
  targets.push(['bench', process.pid]);
  return cpuMeter(targets);
}

/** Sum of the service processes' cores. */
export function ferryCores(u: CpuUse): number {
  return u.cores.filter(([name]) => name.startsWith('ferry#')).reduce((a, [, c]) => a + c, 0);
}


export function printTable(title: string, header: readonly string[], rows: ReadonlyArray<readonly (string | number)[]>): void {
  console.log(`\n${title}\n`);
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

export function round(n: number): string {
  return Number.isNaN(n) ? '–' : Math.round(n).toLocaleString('en');
}

// ---- The storage's own ceiling on this machine ----

/** A driver session on the test Cassandra, outside any Ferry keyspace. */
export function benchSession(): Promise<CassandraSession> {
  return CassandraSession.connect({ contactPoints: [infra.cassandra.contactPoint], localDataCenter: infra.cassandra.localDataCenter, keyspace: 'system', replication: '' });
}

/**
 * Runs `measure` with a session and a scratch keyspace of one replica named after `name` and this process, then
 * drops the keyspace and closes the session, whatever happened.
 */
export async function withScratchKeyspace<T>(name: string, measure: (session: CassandraSession, keyspace: string) => Promise<T>): Promise<T> {
  const session = await benchSession();
  const keyspace = `ferry_bench_${name}_${process.pid}`;
  try {
    await session.execute(`CREATE KEYSPACE ${keyspace} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`, [], 'creating a scratch keyspace');
    return await measure(session, keyspace);
  } finally {
    await session.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`, [], 'dropping a scratch keyspace').catch(() => undefined);
    await session.close();
  }
}

export interface StorageCeiling {
  readonly settings: string;
  readonly readsPerSecond: number;
  readonly writesPerSecond: number;
  readonly writeP50: number;
  readonly lwtPerSecond: number;
  readonly loggedBatchesPerSecond: number;
}

/**
 * Bare cassandra-driver calls on a scratch keyspace, 64 at once: single-row reads and writes, conditional writes
 * (Paxos) and logged batches of three rows. The request store cannot beat these; they are the baseline the
 * service figures compare with, measured in the same run.
 */
export function storageCeiling(seconds = 3): Promise<StorageCeiling> {
  return withScratchKeyspace('ceiling', async (session, ks) => {
    const settings = await session.read(
      "SELECT name, value FROM system_views.settings WHERE name IN ('commitlog_sync', 'commitlog_sync_group_window', 'concurrent_writes', 'concurrent_reads')",
      [],
      'reading settings',
    );
    await session.execute(`CREATE TABLE ${ks}.t (id text PRIMARY KEY, v text, n int)`, [], 'creating a scratch table');
    const rate = async (fn: (i: number) => Promise<unknown>): Promise<{ perSecond: number; p50: number }> => {
      const latencies: number[] = [];
      let i = 0;
      const until = Date.now() + seconds * 1000;
      const start = Date.now();
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (Date.now() < until) {
            const t = performance.now();
            await fn(i++);
            if (latencies.length < 100_000) latencies.push(performance.now() - t);
          }
        }),
      );
      latencies.sort((a, b) => a - b);
      return { perSecond: (i / (Date.now() - start)) * 1000, p50: percentile(latencies, 50) };
    };
    const writes = await rate((i) => session.execute(`INSERT INTO ${ks}.t (id, v) VALUES (?, ?)`, [`w${i}`, 'v'], 'writing'));
    const reads = await rate((i) => session.read(`SELECT v FROM ${ks}.t WHERE id = ?`, [`w${i % 1000}`], 'reading'));
    const lwt = await rate((i) => session.execute(`UPDATE ${ks}.t SET n = ? WHERE id = ? IF n = null`, [1, `l${i}`], 'conditional writing'));
    const batches = await rate((i) =>
      session.batch([0, 1, 2].map((k) => ({ query: `INSERT INTO ${ks}.t (id, v) VALUES (?, ?)`, params: [`b${i}-${k}`, 'v'] })), 'batching', { logged: true }),
    );
    return {
      settings: settings.rows.map((r) => `${String(r['name'])}=${String(r['value'])}`).join(' '),
      readsPerSecond: reads.perSecond,
      writesPerSecond: writes.perSecond,
      writeP50: writes.p50,
      lwtPerSecond: lwt.perSecond,
      loggedBatchesPerSecond: batches.perSecond,
    };
  });
}

export function formatCeiling(c: StorageCeiling): string {
  return (
    `bare Cassandra, 64 calls at once (${c.settings}): writes ${round(c.writesPerSecond)}/s (p50 ${c.writeP50.toFixed(1)} ms), ` +
    `reads ${round(c.readsPerSecond)}/s, conditional writes ${round(c.lwtPerSecond)}/s, logged batches of 3 rows ${round(c.loggedBatchesPerSecond)}/s`
  );
}

// ---- What the storage did during a phase, from Cassandra's own table metrics ----

type TableCounts = Map<string, { reads: number; writes: number }>;

/** Local reads and writes per table of a keyspace, plus the batch log and Paxos state (logged batches, LWTs). */
export class StorageMeter {
  private constructor(private readonly session: CassandraSession) {}

  static async open(): Promise<StorageMeter> {
    return new StorageMeter(
      await benchSession(),
    );
  }

  async counts(keyspace: string): Promise<TableCounts> {
    const out: TableCounts = new Map();
    for (const [view, field] of [['local_read_latency', 'reads'], ['local_write_latency', 'writes']] as const) {
      for (const ks of [keyspace, 'system']) {
        const rs = await this.session.read(`SELECT table_name, count FROM system_views.${view} WHERE keyspace_name = ?`, [ks], 'reading table metrics');
        for (const row of rs.rows) {
          const table = String(row['table_name']);
          if (ks === 'system' && table !== 'paxos' && table !== 'batches') continue;
          const name = ks === 'system' ? `system.${table}` : table;
          const entry = out.get(name) ?? { reads: 0, writes: 0 };
          entry[field] = Number(row['count']);
          out.set(name, entry);
        }
      }
    }
    return out;
  }

  /** Tombstones read per read of `table` (Cassandra's recent histogram), p99 and max. */
  async tombstones(keyspace: string, table: string): Promise<{ p99: number; max: number }> {
    const rs = await this.session.read('SELECT p99th, max FROM system_views.tombstones_per_read WHERE keyspace_name = ? AND table_name = ?', [keyspace, table], 'reading table metrics');
    const row = rs.first();
    return { p99: Number(row?.['p99th'] ?? NaN), max: Number(row?.['max'] ?? NaN) };
  }

  /**
   * Starts counting for one phase; `stop` formats what happened per table, busiest first: per second, or per call
   * when given the number of calls made.
   */
  async start(keyspace: string): Promise<{ stop(calls?: number): Promise<string> }> {
    const before = await this.counts(keyspace);
    const t0 = Date.now();
    return {
      stop: async (calls?: number) => {
        const divisor = calls ?? (Date.now() - t0) / 1000;
        const after = await this.counts(keyspace);
        const timers = await this.tombstones(keyspace, 'timers');
        const rates = (field: 'reads' | 'writes') =>
          [...after.entries()]
            .map(([table, c]) => [table, (c[field] - (before.get(table)?.[field] ?? 0)) / divisor] as const)
            .filter(([, r]) => r >= (calls === undefined ? 1 : 0.1))
            .sort((a, b) => b[1] - a[1])
            .map(([table, r]) => `${table} ${r < 10 ? r.toFixed(1) : round(r)}`)
            .join(', ');
        const unit = calls === undefined ? '/s' : ' per call';
        return `reads${unit} ${rates('reads') || '-'}; writes${unit} ${rates('writes') || '-'}; timers tombstones/read p99 ${timers.p99} max ${timers.max}`;
      },
    };
  }

  close(): Promise<void> {
    return this.session.close();
  }
}
