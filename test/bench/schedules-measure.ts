/**
 * Measurement helpers of the schedule benchmark (`schedules.ts`): its options, lateness statistics, memory and
 * CPU of the service process, and the warnings and errors it logs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { FerryProcess } from '../support/ferry-process.js';
import { formatCpu, type CpuUse } from './cpu-meter.js';

export interface BenchOptions {
  readonly mode: 'embedded' | 'idle' | 'distributed';
  readonly scheduleCount: number;
  readonly minutes: number;
  readonly timingKind: 'cron' | 'interval';
  /** Schedules created through the API at once. */
  readonly concurrency: number;
  readonly perHost: string;
  /** The first measured boundary is the first one at least this long after the last schedule was created. */
  readonly marginMs: number;
  /** Interval timing: how far ahead of the end of creation the first measured instant is set. */
  readonly createLeadMs: number | undefined;
  /** How long before its instant the service enqueues an occurrence (its FERRY_SCHEDULE_LEAD_MS). */
  readonly scheduleLeadMs: number;
  /** Every schedule's `policy.jitter_seconds`: each occurrence due up to this long after its instant; 0 for none. */
  readonly jitterSeconds: number;
  readonly idleMs: number;
  readonly settleMs: number;
}

/** What the service is started with in every mode (FERRY_SCHEDULE_LEAD_MS and the rest pass through from the environment). */
export const ferryEnv = (certFile: string, opts: BenchOptions) => ({
  FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
  FERRY_DELIVERY_CA_FILE: certFile,
  // Every occurrence goes to the one loopback destination, so the per-host limit is the one that binds.
  FERRY_DELIVERY_MAX_PER_HOST: opts.perHost,
});

export const MINUTE = 60_000;
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
export const sleepUntil = (t: number) => sleep(t - Date.now());
export const ceilMinute = (t: number) => Math.ceil(t / MINUTE) * MINUTE;
export const iso = (t: number) => new Date(t).toISOString();

export async function forEachBounded(count: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

// ---------------------------------------------------------------------------------------------- lateness

function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface Stats {
  n: number;
  min: number;
  p50: number;
  p99: number;
  max: number;
  /** How many values are ≤ 0: for a lateness, the share on time or ahead of the instant. */
  atOrBefore: number;
}

export function stats(values: readonly number[]): Stats {
  const s = Float64Array.from(values).sort();
  const atOrBefore = s.reduce((n, v) => (v <= 0 ? n + 1 : n), 0);
  return { n: s.length, min: s[0] ?? NaN, p50: percentile(s, 50), p99: percentile(s, 99), max: s.at(-1) ?? NaN, atOrBefore };
}

export const fmtStats = (s: Stats) => `n ${s.n}, min ${s.min} ms, p50 ${s.p50} ms, p99 ${s.p99} ms, max ${s.max} ms`;

/** The share of values ≤ 0 as a percentage, e.g. "99.98% (29,994 of 30,000)". */
export function fmtShare(s: Stats): string {
  const pct = s.n === 0 ? NaN : (s.atOrBefore / s.n) * 100;
  const digits = pct === 100 || pct === 0 ? 0 : 2;
  return `${pct.toFixed(digits)}% (${s.atOrBefore.toLocaleString('en-US')} of ${s.n.toLocaleString('en-US')})`;
}

// ---------------------------------------------------------------------------------------------- CPU and memory

/**
 * What else the machine is doing: its load averages and how many test runners and other benches are running, so a
 * figure measured on a shared machine can be told from one measured on a quiet one.
 */
export function machineLoad(): string {
  const count = (pattern: string): number => {
    try {
      return Number(execFileSync('pgrep', ['-fc', pattern], { encoding: 'utf8' }).trim());
    } catch {
      // pgrep exits 1 when nothing matches.
      return 0;
    }
  };
  const [one, five, fifteen] = loadavg().map((l) => l.toFixed(2));
  // This bench is one of the `bench/` processes itself (its npm and tsx wrappers too).
  return `load average ${one}, ${five}, ${fifteen}; vitest processes ${count('vitest')}; bench processes ${count('test/bench/')}`;
}

/**
 * Cores busy over the interval outside the measured processes (other engineers' runs, Cassandra, the kernel): the
 * machine's busy share times its cores minus what the named processes used.
 */
export function otherCores(u: CpuUse): number {
  const measured = u.cores.reduce((sum, [, c]) => sum + (Number.isNaN(c) ? 0 : c), 0);
  return Math.max(0, u.machine * u.cpus - measured);
}

/** `formatCpu` with the cores the rest of the machine used meanwhile (`otherCores`). */
export function fmtCpu(u: CpuUse): string {
  return `${formatCpu(u)}, of which others ${otherCores(u).toFixed(2)} cores`;
}

/** CPU time of one named process over a measured interval, ms. */
export function cpuMs(u: CpuUse, name: string): number {
  return (u.cores.find(([n]) => n === name)?.[1] ?? NaN) * u.seconds * 1000;
}

/** Resident and peak resident memory of a process, MiB. */
export function memoryOf(pid: number | undefined): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: Math.round(kib('VmRSS') / 1024), hwm: Math.round(kib('VmHWM') / 1024) };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

/** Samples a process's RSS every second until stopped; the highest sample. */
export function rssSampler(pid: number | undefined): { stop(): number } {
  let max = 0;
  const timer = setInterval(() => (max = Math.max(max, memoryOf(pid).rss)), 1000);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(max, memoryOf(pid).rss);
    },
  };
}

// ---------------------------------------------------------------------------------------------- the service's log

/** Warnings and errors a service process logged, by message. */
export interface LogCounts {
  warnings: number;
  errors: number;
  byMessage: Map<string, number>;
  samples: string[];
}

export function followLog(ferry: FerryProcess): LogCounts {
  const counts: LogCounts = { warnings: 0, errors: 0, byMessage: new Map(), samples: [] };
  let partial = '';
  ferry.followOutput((text) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    if (partial.length > 65_536) partial = '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      let entry: { level?: string; msg?: string };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      if (entry.level !== 'warn' && entry.level !== 'error') continue;
      if (entry.level === 'warn') counts.warnings++;
      else counts.errors++;
      const key = `${entry.level}: ${entry.msg ?? '?'}`;
      counts.byMessage.set(key, (counts.byMessage.get(key) ?? 0) + 1);
      if (counts.samples.length < 5) counts.samples.push(line.slice(0, 400));
    }
  });
  return counts;
}

export function formatLog(l: LogCounts): string {
  if (l.warnings + l.errors === 0) return 'no warnings or errors logged';
  const by = [...l.byMessage].map(([m, n]) => `${m} ×${n}`).join('; ');
  return `${l.warnings} warnings, ${l.errors} errors logged (${by}); first: ${l.samples.join(' | ')}`;
}
