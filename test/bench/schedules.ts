/**
 * Recurring schedules against a real `ferry serve`, destination on loopback (HTTPS, `schedule-receiver.ts`):
 *
 *  - `--mode embedded` (default): `--schedules` (10,000) active schedules firing every minute, cron `* * * * *`
 *    in UTC (all at the minute boundary, the hard case) or `--timing interval` (every 60 s, `starts_at` spread
 *    over the minute). Created through the API, `--concurrency` at once, before the first measured boundary; then
 *    `--minutes` (3) boundaries are measured. Afterwards the SQLite file is read (read-only): every request of the
 *    measured occurrences, with the occurrence instant taken from its idempotency record (`occurrence:<instant>` in
 *    the schedule's scope), so each (schedule, instant) must have exactly one request: zero missing, zero
 *    duplicates (also counted per schedule and minute of `created_at`). Creation lateness = request `created_at`
 *    − instant; claim and first-attempt lateness from the request's `started_at` and its first attempt; delivery
 *    lateness = first arrival at the destination − instant. CPU of the Ferry process (and of this one, which holds
 *    the destination) per firing window (boundary − 0.5 s to the last arrival of that minute) and over the whole
 *    measured minutes, and per Ferry thread its time on a CPU and runnable but waiting for one
 *    (`thread-meter.ts`); RSS before, during (max of 1 s samples) and peak (VmHWM).
 *  - `--mode idle`: the CPU of an idle Ferry process over `--idle-seconds` (60) with no schedule, then with
 *    `--schedules` (10,000) daily schedules (`0 3 * * *` in a zone where 03:00 is hours away), then after deleting
 *    them all, same process.
 *  - `--mode distributed`: the same as embedded on Cassandra + Kafka (`FERRY_BACKEND=cassandra`, one process, a
 *    scratch keyspace and topic dropped afterwards), default 1,000 schedules; CPU per occurrence of Cassandra,
 *    Kafka, Ferry and this process, and Cassandra's reads and writes per table per occurrence.
 *
 *   npm run build && npx tsx test/bench/schedules.ts --mode embedded [--schedules 10000] [--minutes 3]
 *     [--timing cron|interval] [--concurrency 32] [--per-host 256] [--margin-seconds 15] [--lead-seconds <auto>]
 *   npx tsx test/bench/schedules.ts --mode idle [--schedules 10000] [--idle-seconds 60] [--settle-seconds 10]
 *   bash test/infra/infra.sh up && npx tsx test/bench/schedules.ts --mode distributed [--schedules 1000] [--minutes 3]
 *
 * Profile the server with FERRY_TEST_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (see ferry-process.ts).
 * Every loop is bounded in count and time; all traffic goes to 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Api } from '../support/api-client.js';
import { cpuMeter, formatCpu, type CpuUse } from './cpu-meter.js';
import { startOccurrenceReceiver, type OccurrenceReceiver } from './schedule-receiver.js';
import { formatThreads, threadMeter, type ThreadUse } from './thread-meter.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const mode = args.get('mode') ?? 'embedded';
if (!['embedded', 'idle', 'distributed'].includes(mode)) throw new Error(`--mode embedded|idle|distributed, not ${mode}`);
// test/support/deployment.ts reads the backend when it is loaded: set it before anything imports it.
process.env.FERRY_TEST_BACKEND = mode === 'distributed' ? 'cassandra' : 'embedded';
const { createProject, startFerry } = await import('../support/ferry-process.js');
type FerryProcess = Awaited<ReturnType<typeof startFerry>>;

const scheduleCount = Number(args.get('schedules') ?? (mode === 'distributed' ? 1_000 : 10_000));
const minutes = Number(args.get('minutes') ?? 3);
const timingKind = args.get('timing') ?? 'cron';
if (timingKind !== 'cron' && timingKind !== 'interval') throw new Error('--timing cron|interval');
const concurrency = Number(args.get('concurrency') ?? 32);
const perHost = args.get('per-host') ?? '256';
const marginMs = Number(args.get('margin-seconds') ?? 15) * 1000;
const idleMs = Number(args.get('idle-seconds') ?? 60) * 1000;
const settleMs = Number(args.get('settle-seconds') ?? 10) * 1000;
if (!(scheduleCount > 0 && scheduleCount <= 100_000 && minutes > 0 && minutes <= 60)) throw new Error('--schedules 1..100000, --minutes 1..60');

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
const sleepUntil = (t: number) => sleep(t - Date.now());
const ceilMinute = (t: number) => Math.ceil(t / MINUTE) * MINUTE;
const iso = (t: number) => new Date(t).toISOString();

// ---------------------------------------------------------------------------------------------- small helpers

function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Stats {
  n: number;
  min: number;
  p50: number;
  p99: number;
  max: number;
}

function stats(values: readonly number[]): Stats {
  const s = Float64Array.from(values).sort();
  return { n: s.length, min: s[0] ?? NaN, p50: percentile(s, 50), p99: percentile(s, 99), max: s.at(-1) ?? NaN };
}

const fmtStats = (s: Stats) => `n ${s.n}, min ${s.min} ms, p50 ${s.p50} ms, p99 ${s.p99} ms, max ${s.max} ms`;

async function forEachBounded(count: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** Resident and peak resident memory of a process, MiB. */
function memoryOf(pid: number | undefined): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: Math.round(kib('VmRSS') / 1024), hwm: Math.round(kib('VmHWM') / 1024) };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

/** Samples a process's RSS every second until stopped; the highest sample. */
function rssSampler(pid: number | undefined): { stop(): number } {
  let max = 0;
  const timer = setInterval(() => (max = Math.max(max, memoryOf(pid).rss)), 1000);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(max, memoryOf(pid).rss);
    },
  };
}

/** Warnings and errors a service process logged, by message. */
interface LogCounts {
  warnings: number;
  errors: number;
  byMessage: Map<string, number>;
  samples: string[];
}

function followLog(ferry: FerryProcess): LogCounts {
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

function formatLog(l: LogCounts): string {
  if (l.warnings + l.errors === 0) return 'no warnings or errors logged';
  const by = [...l.byMessage].map(([m, n]) => `${m} ×${n}`).join('; ');
  return `${l.warnings} warnings, ${l.errors} errors logged (${by}); first: ${l.samples.join(' | ')}`;
}

// ---------------------------------------------------------------------------------------------- creating schedules

interface Created {
  ids: string[];
  ms: number;
  retries: number;
}

/** Creates `count` schedules through POST /schedules, `concurrency` at once; a 429/5xx is retried with the same key. */
async function createSchedules(api: Api, count: number, definition: (i: number) => Record<string, unknown>): Promise<Created> {
  const ids = new Array<string>(count);
  const start = Date.now();
  const runId = `${process.pid}-${start}`;
  let retries = 0;
  let lastReport = start;
  let done = 0;
  await forEachBounded(count, concurrency, async (i) => {
    for (let attempt = 1; ; attempt++) {
      let status = 0;
      let detail: string;
      try {
        const res = await api.call<{ id: string }>('POST', '/schedules', { json: definition(i), headers: { 'idempotency-key': `bench-${runId}-${i}` } });
        status = res.status;
        if (status === 201) {
          ids[i] = res.body.data.id;
          break;
        }
        detail = JSON.stringify(res.body?.error);
      } catch (err) {
        detail = String(err);
      }
      if (attempt >= 5 || (status !== 0 && status !== 429 && status < 500)) throw new Error(`creating schedule ${i} answered ${status}: ${detail}`);
      retries++;
      await sleep(200 * attempt);
    }
    done++;
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      console.log(`  … ${done} of ${count} schedules created after ${Math.round((Date.now() - start) / 1000)} s`);
    }
  });
  return { ids, ms: Date.now() - start, retries };
}

// ---------------------------------------------------------------------------------------------- what storage holds

/** One request of an occurrence as stored, with the instant its idempotency record names. */
interface StoredOccurrence {
  requestId: string;
  scheduleId: string | null;
  createdAt: number;
  status: string;
  /** When delivery claimed it (the request's started_at) and when its first attempt started. */
  startedAt: number | null;
  firstAttemptAt: number | null;
  /** From the idempotency record `occurrence:<instant>` in the schedule's scope that names this request. */
  at: number | null;
}

interface OccurrenceKey {
  scheduleId: string;
  at: number;
  requestIds: string[];
  /** The claim was never completed (no outcome recorded). */
  open: boolean;
}

function occurrenceKey(scheduleId: string, key: string, outcome: string | null): OccurrenceKey | null {
  if (!key.startsWith('occurrence:')) return null;
  const at = Number(key.slice('occurrence:'.length));
  let requestIds: string[] = [];
  if (outcome !== null) {
    try {
      requestIds = (JSON.parse(outcome) as Array<{ id: string }>).map((a) => a.id);
    } catch {
      requestIds = [];
    }
  }
  return { scheduleId, at, requestIds, open: outcome === null };
}

function joinOccurrences(
  requests: Array<Omit<StoredOccurrence, 'at'>>,
  keys: OccurrenceKey[],
): { occurrences: StoredOccurrence[]; keys: OccurrenceKey[] } {
  const atOf = new Map<string, number>();
  for (const k of keys) for (const id of k.requestIds) atOf.set(id, k.at);
  return { occurrences: requests.map((r) => ({ ...r, at: atOf.get(r.requestId) ?? null })), keys };
}

/** The embedded file, opened read-only after the process stopped. */
function readEmbedded(dataDir: string): { occurrences: StoredOccurrence[]; keys: OccurrenceKey[]; schedules: Map<string, number> } {
  const db = new Database(join(dataDir, 'ferry.db'), { readonly: true, fileMustExist: true });
  try {
    const requests = (
      db
        .prepare(
          `SELECT r.id, r.schedule_id, r.created_at, r.status, r.started_at, a.started_at AS attempt_started_at FROM requests r
             LEFT JOIN attempts a ON a.request_id = r.id AND a.attempt_number = 1 WHERE r.source = 'recurring'`,
        )
        .all() as Array<{
        id: string;
        schedule_id: string | null;
        created_at: number;
        status: string;
        started_at: number | null;
        attempt_started_at: number | null;
      }>
    ).map((r) => ({
      requestId: r.id,
      scheduleId: r.schedule_id,
      createdAt: r.created_at,
      status: r.status,
      startedAt: r.started_at,
      firstAttemptAt: r.attempt_started_at,
    }));
    const keys = (
      db.prepare("SELECT project_id, key, outcome FROM idempotency WHERE key LIKE 'occurrence:%'").all() as Array<{
        project_id: string;
        key: string;
        outcome: string | null;
      }>
    ).flatMap((k) => occurrenceKey(k.project_id, k.key, k.outcome) ?? []);
    const outcomes = db.prepare("SELECT coalesce(last_run_outcome, 'none') AS o, count(*) AS n FROM schedules GROUP BY o").all() as Array<{ o: string; n: number }>;
    return { ...joinOccurrences(requests, keys), schedules: new Map(outcomes.map((r) => [r.o, r.n])) };
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------- the firing run

interface Window {
  minute: number;
  boundary: number;
  /** From boundary − 0.5 s to the last arrival of the minute (or the next window). */
  seconds: number;
  arrived: number;
  cpu: CpuUse;
  /** The Ferry process's threads: on a CPU, and runnable but waiting for one. */
  threads: ThreadUse;
}

interface FiringResult {
  created: Created;
  firstBoundary: number;
  creationEndedBeforeMs: number;
  windows: Window[];
  whole: CpuUse;
  rssBefore: number;
  rssMax: number;
  rssPeak: number;
  expected: number;
  found: number;
  missing: Array<{ scheduleId: string; at: number }>;
  duplicates: Array<{ scheduleId: string; at: number; requests: string[] }>;
  duplicatesByCreatedMinute: number;
  unexpectedInWindow: number;
  orphans: number;
  openClaims: number;
  notSucceeded: Map<string, number>;
  creation: Stats;
  creationPerMinute: Stats[];
  /** The request's started_at (claimed by delivery) and its first attempt's start, − instant. */
  claim: Stats;
  firstAttempt: Stats;
  delivery: Stats;
  deliveryPerMinute: Stats[];
  notDelivered: number;
  duplicateDeliveries: number;
  headerMismatches: number;
  scheduleOutcomes: Map<string, number>;
  log: LogCounts;
  storage?: string;
}

interface Deployment {
  api: Api;
  dest: OccurrenceReceiver;
  ferry: FerryProcess;
  log: LogCounts;
  meter(): { stop(): CpuUse };
  /** Stops the service and reads what it stored. */
  stopAndRead(): Promise<{ occurrences: StoredOccurrence[]; keys: OccurrenceKey[]; schedules: Map<string, number> }>;
  storage?: () => Promise<{ stop(calls: number): Promise<string> }>;
}

async function firing(d: Deployment): Promise<FiringResult> {
  const url = `${d.dest.url}/occurrence`;
  const leadMs = Number(args.get('lead-seconds') ?? Math.ceil(30 + scheduleCount / 50)) * 1000;
  // Interval timing: the first measured minute is fixed before creating, as every starts_at must be in the future.
  const intervalStart = ceilMinute(Date.now() + leadMs);
  const offsetOf = (i: number) => (timingKind === 'interval' ? (i % 60) * 1000 : 0);
  const timing = (i: number) =>
    timingKind === 'cron'
      ? { type: 'cron', expression: '* * * * *', timezone: 'UTC' }
      : { type: 'interval', every_seconds: 60, starts_at: iso(intervalStart + offsetOf(i)) };
  console.log(`creating ${scheduleCount} schedules (${timingKind}), ${concurrency} at once …`);
  const created = await createSchedules(d.api, scheduleCount, (i) => ({
    name: `bench-${i}`,
    timing: timing(i),
    request: { url, body: { i }, headers: { 'x-bench': 'schedules' }, retry: 2 },
  }));
  const createdAt = Date.now();
  console.log(`  created in ${created.ms} ms (${Math.round((scheduleCount / created.ms) * 1000)}/s, ${created.retries} retries)`);
  const firstBoundary = timingKind === 'cron' ? ceilMinute(createdAt + marginMs) : intervalStart;
  if (createdAt > firstBoundary - 1000) console.log(`  warning: creation ended ${createdAt - firstBoundary} ms after the first measured instant`);
  const index = new Map(created.ids.map((id, i) => [id, i]));
  const expectedAt = (i: number, k: number) => firstBoundary + offsetOf(i) + k * MINUTE;
  const windowEnd = firstBoundary + minutes * MINUTE;
  console.log(`  first measured boundary ${iso(firstBoundary)} (${firstBoundary - createdAt} ms after creation ended), ${minutes} minute(s)`);

  const rssBefore = memoryOf(d.ferry.child.pid).rss;
  await sleepUntil(firstBoundary - 1000);
  const rss = rssSampler(d.ferry.child.pid);
  const storage = await d.storage?.();
  const arrivedBefore = d.dest.count();
  const whole = d.meter();
  const windows: Window[] = [];
  for (let k = 0; k < minutes; k++) {
    const boundary = firstBoundary + k * MINUTE;
    await sleepUntil(boundary - 500);
    const meter = d.meter();
    const threadsOf = threadMeter(d.ferry.child.pid);
    const t0 = Date.now();
    const from = d.dest.count();
    const last = boundary + MINUTE - 600;
    // Cron: every occurrence of the minute is due at its boundary; the window closes at its last arrival.
    // Interval: occurrences are spread over the minute, the window is the minute.
    while (Date.now() < last && (timingKind === 'interval' || d.dest.count() - from < scheduleCount)) await sleep(20);
    const arrived = d.dest.count() - from;
    windows.push({ minute: k, boundary, seconds: (Date.now() - t0) / 1000, arrived, cpu: meter.stop(), threads: threadsOf.stop() });
    console.log(`  minute ${k + 1}: ${arrived} arrivals in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${formatCpu(windows.at(-1)!.cpu)}`);
    console.log(`    ferry threads: ${formatThreads(windows.at(-1)!.threads)}`);
  }
  await sleepUntil(windowEnd - 500);
  const wholeCpu = whole.stop();
  // Stragglers of the measured minutes (bounded); occurrences of later boundaries are left out of the analysis.
  const wanted = scheduleCount * minutes;
  const straggleUntil = Date.now() + 120_000;
  while (d.dest.count() - arrivedBefore < wanted && Date.now() < straggleUntil) await sleep(100);
  const storageReport = storage ? await storage.stop(wanted) : undefined;
  const rssMax = rss.stop();
  const rssPeak = memoryOf(d.ferry.child.pid).hwm;
  const stored = await d.stopAndRead();

  // ---- exactly once: one request per (schedule, instant) of the measured minutes
  const byOccurrence = new Map<string, StoredOccurrence[]>();
  let unexpectedInWindow = 0;
  let orphans = 0;
  const byCreatedMinute = new Map<string, number>();
  for (const o of stored.occurrences) {
    if (o.scheduleId === null || !index.has(o.scheduleId)) continue;
    if (o.at === null) orphans++;
    const at = o.at ?? Math.floor(o.createdAt / MINUTE) * MINUTE + offsetOf(index.get(o.scheduleId)!);
    if (at < firstBoundary || at >= windowEnd) continue;
    const i = index.get(o.scheduleId)!;
    if ((at - firstBoundary - offsetOf(i)) % MINUTE !== 0) {
      unexpectedInWindow++;
      continue;
    }
    const key = `${o.scheduleId}@${at}`;
    const list = byOccurrence.get(key) ?? [];
    list.push(o);
    byOccurrence.set(key, list);
    const minuteKey = `${o.scheduleId}@${Math.floor(o.createdAt / MINUTE)}`;
    byCreatedMinute.set(minuteKey, (byCreatedMinute.get(minuteKey) ?? 0) + 1);
  }
  const missing: FiringResult['missing'] = [];
  const duplicates: FiringResult['duplicates'] = [];
  const creation: number[] = [];
  const claim: number[] = [];
  const firstAttempt: number[] = [];
  const creationPerMinute: number[][] = Array.from({ length: minutes }, () => []);
  const instantOf = new Map<string, { at: number; minute: number; scheduleId: string }>();
  const notSucceeded = new Map<string, number>();
  created.ids.forEach((id, i) => {
    for (let k = 0; k < minutes; k++) {
      const at = expectedAt(i, k);
      const list = byOccurrence.get(`${id}@${at}`) ?? [];
      if (list.length === 0) {
        missing.push({ scheduleId: id, at });
        continue;
      }
      if (list.length > 1) duplicates.push({ scheduleId: id, at, requests: list.map((o) => o.requestId) });
      const first = list.reduce((a, b) => (a.createdAt <= b.createdAt ? a : b));
      creation.push(first.createdAt - at);
      if (first.startedAt !== null) claim.push(first.startedAt - at);
      if (first.firstAttemptAt !== null) firstAttempt.push(first.firstAttemptAt - at);
      creationPerMinute[k]!.push(first.createdAt - at);
      for (const o of list) {
        instantOf.set(o.requestId, { at, minute: k, scheduleId: id });
        if (o.status !== 'succeeded') notSucceeded.set(o.status, (notSucceeded.get(o.status) ?? 0) + 1);
      }
    }
  });
  const duplicatesByCreatedMinute = [...byCreatedMinute.values()].reduce((a, n) => a + Math.max(0, n - 1), 0);

  // ---- delivery: first arrival of each measured occurrence's request
  const delivery: number[] = [];
  const deliveryPerMinute: number[][] = Array.from({ length: minutes }, () => []);
  const seen = new Set<string>();
  let duplicateDeliveries = 0;
  let headerMismatches = 0;
  for (const a of d.dest.arrivals) {
    const o = a.requestId === undefined ? undefined : instantOf.get(a.requestId);
    if (o === undefined) continue;
    if (a.scheduleId !== o.scheduleId) headerMismatches++;
    if (seen.has(a.requestId!)) {
      duplicateDeliveries++;
      continue;
    }
    seen.add(a.requestId!);
    delivery.push(a.receivedAt - o.at);
    deliveryPerMinute[o.minute]!.push(a.receivedAt - o.at);
  }
  return {
    created,
    firstBoundary,
    creationEndedBeforeMs: firstBoundary - createdAt,
    windows,
    whole: wholeCpu,
    rssBefore,
    rssMax,
    rssPeak,
    expected: scheduleCount * minutes,
    found: byOccurrence.size,
    missing,
    duplicates,
    duplicatesByCreatedMinute,
    unexpectedInWindow,
    orphans,
    openClaims: stored.keys.filter((k) => k.open && k.at >= firstBoundary && k.at < windowEnd).length,
    notSucceeded,
    creation: stats(creation),
    creationPerMinute: creationPerMinute.map(stats),
    claim: stats(claim),
    firstAttempt: stats(firstAttempt),
    delivery: stats(delivery),
    deliveryPerMinute: deliveryPerMinute.map(stats),
    notDelivered: instantOf.size - seen.size,
    duplicateDeliveries,
    headerMismatches,
    scheduleOutcomes: stored.schedules,
    log: d.log,
    ...(storageReport === undefined ? {} : { storage: storageReport }),
  };
}

function cpuMs(u: CpuUse, name: string): number {
  return (u.cores.find(([n]) => n === name)?.[1] ?? NaN) * u.seconds * 1000;
}

function report(r: FiringResult, title: string, names: readonly string[]): void {
  const occurrences = r.expected;
  console.log(`\n=== ${title} ===`);
  console.log(
    `schedules ${scheduleCount} (${timingKind}), created in ${r.created.ms} ms (${Math.round((scheduleCount / r.created.ms) * 1000)}/s, ${concurrency} at once), ` +
      `${r.creationEndedBeforeMs} ms before the first measured instant ${iso(r.firstBoundary)}; ${minutes} minute(s)`,
  );
  const exact = r.missing.length === 0 && r.duplicates.length === 0 && r.duplicatesByCreatedMinute === 0 && r.unexpectedInWindow === 0;
  console.log(
    `exactly once: ${exact ? 'YES' : 'NO'} — expected ${occurrences}, found ${r.found}, missing ${r.missing.length}, duplicates ${r.duplicates.length} ` +
      `(by schedule and created minute ${r.duplicatesByCreatedMinute}), off-instant ${r.unexpectedInWindow}, requests without an occurrence record ${r.orphans}, ` +
      `open claims ${r.openClaims}; not succeeded: ${[...r.notSucceeded].map(([s, n]) => `${s} ${n}`).join(', ') || 'none'}`,
  );
  if (r.missing.length > 0) {
    const perMinute = Array.from({ length: minutes }, (_, k) => r.missing.filter((m) => m.at >= r.firstBoundary + k * MINUTE && m.at < r.firstBoundary + (k + 1) * MINUTE).length);
    console.log(`  missing per minute: ${perMinute.join(', ')}; e.g. ${r.missing.slice(0, 3).map((m) => `${m.scheduleId}@${iso(m.at)}`).join(', ')}`);
  }
  if (r.duplicates.length > 0) console.log(`  duplicates e.g. ${r.duplicates.slice(0, 3).map((m) => `${m.scheduleId}@${iso(m.at)}: ${m.requests.join(',')}`).join('; ')}`);
  console.log(`  schedules' last_run_outcome: ${[...r.scheduleOutcomes].map(([o, n]) => `${o} ${n}`).join(', ')}`);
  console.log(`creation lateness (created_at − instant): ${fmtStats(r.creation)}`);
  r.creationPerMinute.forEach((s, k) => console.log(`  minute ${k + 1}: ${fmtStats(s)}`));
  console.log(`claim lateness (started_at − instant): ${fmtStats(r.claim)}`);
  console.log(`first attempt lateness (attempt 1 started_at − instant): ${fmtStats(r.firstAttempt)}`);
  console.log(
    `delivery lateness (arrival − instant): ${fmtStats(r.delivery)}; not delivered ${r.notDelivered}, duplicate deliveries ${r.duplicateDeliveries}, Service-Schedule-Id mismatches ${r.headerMismatches}`,
  );
  r.deliveryPerMinute.forEach((s, k) => console.log(`  minute ${k + 1}: ${fmtStats(s)}`));
  for (const w of r.windows) {
    const per = names.map((n) => `${n} ${(cpuMs(w.cpu, n) / Math.max(1, w.arrived)).toFixed(2)}`).join(', ');
    console.log(`firing window ${w.minute + 1} (${w.seconds.toFixed(1)} s, ${w.arrived} arrivals): ${formatCpu(w.cpu)}; ms CPU per occurrence: ${per}`);
    console.log(`  ferry threads: ${formatThreads(w.threads)}`);
  }
  const perWhole = names.map((n) => `${n} ${(cpuMs(r.whole, n) / occurrences).toFixed(2)}`).join(', ');
  console.log(`whole ${minutes} minute(s) (${r.whole.seconds.toFixed(0)} s): ${formatCpu(r.whole)}; ms CPU per occurrence: ${perWhole}`);
  console.log(`ferry RSS: ${r.rssBefore} MiB before the first measured minute, max ${r.rssMax} MiB during, peak (VmHWM) ${r.rssPeak} MiB`);
  if (r.storage !== undefined) console.log(`storage per occurrence: ${r.storage}`);
  console.log(`log: ${formatLog(r.log)}`);
  const w = r.windows;
  console.log(
    `\nSUMMARY ${title}: exactly once ${exact ? 'yes' : 'NO'} (missing ${r.missing.length}, duplicates ${r.duplicates.length}); ` +
      `creation p50/p99/max ${r.creation.p50}/${r.creation.p99}/${r.creation.max} ms (target p99 ≤ 1000: ${r.creation.p99 <= 1000 ? 'met' : 'MISSED'}); ` +
      `delivery p50/p99/max ${r.delivery.p50}/${r.delivery.p99}/${r.delivery.max} ms (target p99 ≤ 2000: ${r.delivery.p99 <= 2000 ? 'met' : 'MISSED'}); ` +
      `ferry ${(cpuMs(r.whole, names[0]!) / occurrences).toFixed(2)} ms CPU/occurrence over the minutes, ` +
      `firing windows ${w.map((x) => `${x.seconds.toFixed(1)} s at ${(cpuMs(x.cpu, names[0]!) / x.seconds / 1000).toFixed(2)} cores`).join(', ')}; ` +
      `RSS ${r.rssBefore} → max ${r.rssMax} MiB (peak ${r.rssPeak})`,
  );
}

// ---------------------------------------------------------------------------------------------- modes

const ferryEnv = (certFile: string) => ({
  FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
  FERRY_DELIVERY_CA_FILE: certFile,
  // Every occurrence goes to the one loopback destination, so the per-host limit is the one that binds.
  FERRY_DELIVERY_MAX_PER_HOST: perHost,
});

async function embedded(): Promise<void> {
  const dest = await startOccurrenceReceiver();
  const ferry = await startFerry({ env: ferryEnv(dest.certFile) });
  let stopped = false;
  try {
    const log = followLog(ferry);
    const { apiKey } = await createProject(ferry.dataDir, { name: 'b', scheduleAllowance: Math.max(20_000, scheduleCount), monthlyAllowance: 100_000_000 });
    const result = await firing({
      api: new Api(ferry.baseUrl, apiKey),
      dest,
      ferry,
      log,
      meter: () => cpuMeter([['ferry', ferry.child.pid], ['bench', process.pid]]),
      async stopAndRead() {
        stopped = true;
        const code = await ferry.stop();
        // For slicing a --cpu-prof profile of the server by wall-clock time: its endTime is this instant.
        console.log(`  ferry exited with ${code} at ${Date.now()} (epoch ms)`);
        return readEmbedded(ferry.dataDir);
      },
    });
    report(result, `embedded, ${scheduleCount} × ${timingKind} every minute`, ['ferry', 'bench']);
  } finally {
    if (!stopped) await ferry.stop();
    await dest.close();
  }
}

/** A zone where 03:00 is at least `hours` away, so a daily `0 3 * * *` cannot fall due during the run. */
function zoneAwayFrom3am(hours: number): string {
  for (const zone of ['UTC', 'Asia/Tokyo', 'Europe/Berlin', 'America/New_York', 'Pacific/Auckland', 'Asia/Kolkata']) {
    const hour = Number(new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', hourCycle: 'h23' }).format(new Date()));
    const untilThree = (3 - hour + 24) % 24;
    if (untilThree > hours) return zone;
  }
  throw new Error('no zone found');
}

async function idle(): Promise<void> {
  const dest = await startOccurrenceReceiver();
  const ferry = await startFerry({ env: ferryEnv(dest.certFile) });
  try {
    const log = followLog(ferry);
    const { apiKey } = await createProject(ferry.dataDir, { name: 'b', scheduleAllowance: Math.max(20_000, scheduleCount), monthlyAllowance: 100_000_000 });
    const api = new Api(ferry.baseUrl, apiKey);
    // One authenticated call first, so both measurements see a process that has served the API.
    await api.call('GET', '/schedules?limit=1');
    const measure = async (label: string) => {
      await sleep(settleMs);
      const m = cpuMeter([['ferry', ferry.child.pid], ['bench', process.pid]]);
      const t = threadMeter(ferry.child.pid);
      await sleep(idleMs);
      const cpu = m.stop();
      const th = t.stop();
      const mem = memoryOf(ferry.child.pid);
      // From schedstat (ns), finer than the 10 ms ticks of /proc/<pid>/stat.
      const msPerSecond = th.threads.reduce((sum, x) => sum + x.onCpu, 0) * 1000;
      console.log(
        `${label}: ferry ${msPerSecond.toFixed(2)} ms CPU per second over ${th.seconds.toFixed(0)} s ` +
          `(ticks: ${(cpuMs(cpu, 'ferry') / cpu.seconds).toFixed(2)} ms/s; machine ${Math.round(cpu.machine * 100)}% of ${cpu.cpus} cores); RSS ${mem.rss} MiB; ` +
          `threads: ${th.threads.filter((x) => x.onCpu > 0).map((x) => `${x.name}#${x.tid} ${(x.onCpu * 1000).toFixed(2)} ms/s`).join(', ')}`,
      );
      return { msPerSecond, rss: mem.rss };
    };
    const empty = await measure('idle, no schedules');
    const zone = zoneAwayFrom3am(3);
    console.log(`creating ${scheduleCount} schedules "0 3 * * *" in ${zone} …`);
    const created = await createSchedules(api, scheduleCount, (i) => ({
      name: `daily-${i}`,
      timing: { type: 'cron', expression: '0 3 * * *', timezone: zone },
      request: { url: `${dest.url}/daily`, body: { i } },
    }));
    console.log(`  created in ${created.ms} ms (${Math.round((scheduleCount / created.ms) * 1000)}/s, ${created.retries} retries)`);
    const loaded = await measure(`idle, ${scheduleCount} daily schedules`);
    // The same process with no schedule again, past its start-up (the first figure may still hold some of it).
    const deleteStart = Date.now();
    let refused = 0;
    await forEachBounded(created.ids.length, concurrency, async (i) => {
      const res = await api.call('DELETE', `/schedules/${created.ids[i]}`);
      if (res.status >= 300) refused++;
    });
    console.log(`  deleted in ${Date.now() - deleteStart} ms (${refused} refused)`);
    const emptied = await measure('idle, all schedules deleted');
    console.log(`deliveries during the run (must be 0): ${dest.count()}; log: ${formatLog(log)}`);
    console.log(
      `\nSUMMARY idle: ferry ${empty.msPerSecond.toFixed(2)} ms CPU/s with no schedules (fresh process), ${loaded.msPerSecond.toFixed(2)} ms CPU/s with ${scheduleCount} daily schedules, ` +
        `${emptied.msPerSecond.toFixed(2)} ms CPU/s after deleting them; RSS ${empty.rss} → ${loaded.rss} → ${emptied.rss} MiB`,
    );
  } finally {
    await ferry.stop();
    await dest.close();
  }
}

async function distributed(): Promise<void> {
  await import('./distributed-env.js');
  const dc = await import('./distributed-cluster.js');
  const { backendEnv, dropDeployments } = await import('../support/deployment.js');
  const { CassandraSession } = await import('../../src/adapters/cassandra/session.js');
  const { infra } = await import('../support/infra.js');
  await dc.assertInfra();
  const dest = await startOccurrenceReceiver();
  const storageMeter = await dc.StorageMeter.open();
  const cluster = await dc.startCluster(1, ferryEnv(dest.certFile));
  let stopped = false;
  try {
    const coverageMs = await cluster.waitForCoverage();
    console.log(`one process on Cassandra + Kafka, shards covered ${coverageMs} ms after start`);
    const ferry = cluster.processes[0]!.ferry;
    const log = followLog(ferry);
    const { apiKey } = await createProject(cluster.dataDir, { name: 'b', scheduleAllowance: Math.max(20_000, scheduleCount), monthlyAllowance: 100_000_000 });
    const keyspace = backendEnv(cluster.dataDir).FERRY_CASSANDRA_KEYSPACE!;
    const result = await firing({
      api: new Api(ferry.baseUrl, apiKey),
      dest,
      ferry,
      log,
      meter: () => dc.meterCluster(cluster),
      storage: () => storageMeter.start(keyspace),
      async stopAndRead() {
        stopped = true;
        await cluster.stop();
        const session = await CassandraSession.connect({ ...infra.cassandra.connection(keyspace), replication: '' });
        try {
          const all = async (query: string) => {
            const rows: Array<Record<string, unknown>> = [];
            let pageState: string | undefined;
            for (let page = 0; page < 10_000; page++) {
              const rs = await session.client.execute(query, [], { prepare: true, fetchSize: 2000, ...(pageState ? { pageState } : {}) });
              rows.push(...(rs.rows as unknown as Array<Record<string, unknown>>));
              pageState = rs.pageState;
              if (!pageState) break;
            }
            return rows;
          };
          // One row per attempt (or one without attempt columns): the request's own columns are static.
          const byId = new Map<string, Omit<StoredOccurrence, 'at'>>();
          const rows = await all(
            `SELECT id, attempt_number, schedule_id, created_at, source, status, started_at, attempt_started_at FROM ${keyspace}.requests`,
          );
          for (const r of rows) {
            if (r['source'] !== 'recurring') continue;
            const id = String(r['id']);
            const entry = byId.get(id) ?? {
              requestId: id,
              scheduleId: (r['schedule_id'] as string | null) ?? null,
              createdAt: Number(r['created_at']),
              status: String(r['status']),
              startedAt: r['started_at'] == null ? null : Number(r['started_at']),
              firstAttemptAt: null,
            };
            if (Number(r['attempt_number']) === 1 && r['attempt_started_at'] != null) entry.firstAttemptAt = Number(r['attempt_started_at']);
            byId.set(id, entry);
          }
          const requests = [...byId.values()];
          const keys = (await all(`SELECT project_id, key, outcome FROM ${keyspace}.idempotency_keys`)).flatMap(
            (k) => occurrenceKey(String(k['project_id']), String(k['key']), (k['outcome'] as string | null) ?? null) ?? [],
          );
          const outcomes = new Map<string, number>();
          for (const s of await all(`SELECT last_run_outcome FROM ${keyspace}.schedules`)) {
            const o = (s['last_run_outcome'] as string | null) ?? 'none';
            outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
          }
          return { ...joinOccurrences(requests, keys), schedules: outcomes };
        } finally {
          await session.close();
        }
      },
    });
    report(result, `distributed (Cassandra + Kafka, 1 process), ${scheduleCount} × ${timingKind} every minute`, ['ferry#1', 'cassandra', 'kafka', 'bench']);
  } finally {
    if (!stopped) await cluster.stop();
    await dest.close();
    await storageMeter.close();
    await dropDeployments();
  }
}

if (mode === 'embedded') await embedded();
else if (mode === 'idle') await idle();
else await distributed();
