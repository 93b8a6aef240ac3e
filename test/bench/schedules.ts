/**
 * Recurring schedules against a real `ferry serve`, destination on loopback (HTTPS, `receiver.ts`):
 *
 *  - `--mode embedded` (default, `schedules-embedded.ts`): `--schedules` (10,000) active schedules firing every
 *    minute, cron `* * * * *` in UTC (all at the minute boundary, the hard case) or `--timing interval` (every
 *    60 s, `starts_at` spread over the minute). Created through the API, `--concurrency` at once, before the first
 *    measured boundary; then `--minutes` (3) boundaries are measured (`schedules-firing.ts`). Afterwards the SQLite
 *    file is read (read-only): every request of the measured occurrences, with the occurrence instant taken from
 *    its idempotency record (`occurrence:<instant>:<revision>` in the schedule's scope), so each (schedule,
 *    instant) must have exactly one request: zero missing, zero duplicates (also counted per schedule and minute
 *    of `created_at`) (`schedules-occurrences.ts`). The service enqueues each occurrence FERRY_SCHEDULE_LEAD_MS
 *    (10 s by default; set it in this process's environment, it passes through) before its instant, as a request
 *    created as of that instant, so creation lateness = the firing's claim of that record − instant is negative
 *    when created ahead, and "created by the instant" is the share ≤ 0; claim and first-attempt lateness from the
 *    request's `started_at` and its first attempt; delivery lateness = first arrival at the destination − instant, the headline figure.
 *    CPU of the Ferry process (and of this one, which holds the destination) per firing window (boundary − lead −
 *    0.5 s to the last arrival of that minute) and over the whole measured minutes (shifted back by the lead too),
 *    and per Ferry thread its time on a CPU and runnable but waiting for one (`thread-meter.ts`); RSS before,
 *    during (max of 1 s samples) and peak (VmHWM).
 *    `--jitter N` (seconds, default 0: none) creates every schedule with `policy.jitter_seconds` N: each occurrence's
 *    request is due at its instant plus a delay in [0, N s) drawn from the schedule and the instant. Claim, first
 *    attempt and delivery lateness are then measured from that due time (the request's `scheduled_at`, or the draw
 *    itself, `jitterDelayMs`, when it was created as of it), and per measured minute the spread of due times and
 *    of first arrivals over [instant, instant + N s) is told (`jitter-spread.ts`): per-second counts, their mean and
 *    the fullest second as a multiple of it (goal ≤ 2×), the Kolmogorov–Smirnov distance from uniform (goal
 *    ≤ 10 %), and arrivals before the instant (must be none) and after instant + N s. The waits for a minute's
 *    arrivals and for the stragglers reach instant + N s and a margin.
 *  - `--mode idle` (`schedules-idle.ts`): the CPU of an idle Ferry process over `--idle-seconds` (60) with no
 *    schedule, then with `--schedules` (10,000) daily schedules (`0 3 * * *` in a zone where 03:00 is hours away),
 *    then after deleting them all, same process.
 *  - `--mode distributed` (`schedules-distributed.ts`): the same as embedded on Cassandra + Kafka
 *    (`FERRY_BACKEND=cassandra`, one process, a scratch keyspace and topic dropped afterwards), default 1,000
 *    schedules; CPU per occurrence of Cassandra, Kafka, Ferry and this process, and Cassandra's reads and writes
 *    per table per occurrence.
 *
 *   npm run build && npx tsx test/bench/schedules.ts --mode embedded [--schedules 10000] [--minutes 3]
 *     [--timing cron|interval] [--concurrency 32] [--per-host 256] [--margin-seconds 15] [--lead-seconds <auto>]
 *     [--jitter 0]
 *   npx tsx test/bench/schedules.ts --mode embedded --schedules 10000 --minutes 3 --jitter 30   (spread over 30 s)
 *   FERRY_SCHEDULE_LEAD_MS=0 npx tsx test/bench/schedules.ts --mode embedded   (occurrences created at their instant)
 *   npx tsx test/bench/schedules.ts --mode idle [--schedules 10000] [--idle-seconds 60] [--settle-seconds 10]
 *   bash test/infra/infra.sh up && npx tsx test/bench/schedules.ts --mode distributed [--schedules 1000] [--minutes 3]
 *     [--jitter 0]
 *
 * `--lead-seconds` is how far ahead of creation the first instant of `--timing interval` is set (not the service's
 * lead). Profile the server with FERRY_TEST_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (see ferry-process.ts).
 * Every loop is bounded in count and time; all traffic goes to 127.0.0.1.
 */
import { loadConfig } from '../../src/config/config.js';
import { fmtSpread, spreadMet } from './jitter-spread.js';
import type { FiringResult } from './schedules-firing.js';
import { cpuMs, fmtCpu, fmtShare, fmtStats, formatLog, iso, machineLoad, MINUTE, otherCores, type BenchOptions } from './schedules-measure.js';
import { formatThreads } from './thread-meter.js';

function parseOptions(): BenchOptions {
  const args = new Map<string, string>();
  for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
  const mode = args.get('mode') ?? 'embedded';
  if (mode !== 'embedded' && mode !== 'idle' && mode !== 'distributed') throw new Error(`--mode embedded|idle|distributed, not ${mode}`);
  const timingKind = args.get('timing') ?? 'cron';
  if (timingKind !== 'cron' && timingKind !== 'interval') throw new Error('--timing cron|interval');
  const scheduleCount = Number(args.get('schedules') ?? (mode === 'distributed' ? 1_000 : 10_000));
  const minutes = Number(args.get('minutes') ?? 3);
  if (!(scheduleCount > 0 && scheduleCount <= 100_000 && minutes > 0 && minutes <= 60)) throw new Error('--schedules 1..100000, --minutes 1..60');
  // What the service will use: the same variable, read and checked as the service reads it.
  const scheduleLeadMs = loadConfig({ FERRY_SCHEDULE_LEAD_MS: process.env.FERRY_SCHEDULE_LEAD_MS }).scheduleLeadMs;
  const createLead = args.get('lead-seconds');
  // Every timing here fires each minute: the service takes at most that gap as jitter.
  const jitterSeconds = Number(args.get('jitter') ?? 0);
  if (!(Number.isInteger(jitterSeconds) && jitterSeconds >= 0 && jitterSeconds <= 60)) throw new Error('--jitter 0..60 (whole seconds)');
  return {
    mode,
    scheduleCount,
    minutes,
    timingKind,
    concurrency: Number(args.get('concurrency') ?? 32),
    perHost: args.get('per-host') ?? '256',
    marginMs: Number(args.get('margin-seconds') ?? Math.max(15, Math.ceil(scheduleLeadMs / 1000) + 5)) * 1000,
    createLeadMs: createLead === undefined ? undefined : Number(createLead) * 1000,
    scheduleLeadMs,
    jitterSeconds,
    idleMs: Number(args.get('idle-seconds') ?? 60) * 1000,
    settleMs: Number(args.get('settle-seconds') ?? 10) * 1000,
  };
}

function report(r: FiringResult, title: string, names: readonly string[], opts: BenchOptions, startLoad: string): void {
  const { scheduleCount, minutes, timingKind, jitterSeconds } = opts;
  const occurrences = r.expected;
  const due = jitterSeconds > 0 ? 'due time' : 'instant';
  console.log(`\n=== ${title} ===`);
  console.log(`machine at the start: ${startLoad}; at the end: ${machineLoad()}`);
  console.log(
    `schedules ${scheduleCount} (${timingKind}), created in ${r.created.ms} ms (${Math.round((scheduleCount / r.created.ms) * 1000)}/s, ${opts.concurrency} at once), ` +
      `${r.creationEndedBeforeMs} ms before the first measured instant ${iso(r.firstBoundary)}; ${minutes} minute(s); ` +
      `occurrences enqueued ${opts.scheduleLeadMs} ms ahead (FERRY_SCHEDULE_LEAD_MS)` +
      (jitterSeconds > 0 ? `; jitter ${jitterSeconds} s (each due at its instant + a delay in [0, ${jitterSeconds} s))` : ''),
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
  console.log(`creation lateness (fired − instant, negative: created ahead of it): ${fmtStats(r.creation)}; created by the instant ${fmtShare(r.creation)}`);
  r.creationPerMinute.forEach((s, k) => console.log(`  minute ${k + 1}: ${fmtStats(s)}; created by the instant ${fmtShare(s)}`));
  if (jitterSeconds > 0) {
    const c = r.dueCheck;
    console.log(`created by its due time (fired − instant − its delay ≤ 0): ${fmtShare(r.creationByDue)}`);
    console.log(
      `due times (instant + delay): stored ${c.matching + c.differing}, of which as drawn by jitterDelayMs ${c.matching}, otherwise ${c.differing}` +
        `${c.example === null ? '' : ` (e.g. ${c.example})`}; not stored (created as of the due time or later, the draw taken) ${c.unset}`,
    );
  }
  console.log(`claim lateness (started_at − ${due}): ${fmtStats(r.claim)}`);
  console.log(`first attempt lateness (attempt 1 started_at − ${due}): ${fmtStats(r.firstAttempt)}`);
  console.log(
    `delivery lateness (arrival − ${due}): ${fmtStats(r.delivery)}; not delivered ${r.notDelivered}, duplicate deliveries ${r.duplicateDeliveries}, Service-Schedule-Id mismatches ${r.headerMismatches}`,
  );
  r.deliveryPerMinute.forEach((s, k) => console.log(`  minute ${k + 1}: ${fmtStats(s)}`));
  r.arrivalSpreadPerMinute.forEach((s, k) => {
    console.log(`spread of minute ${k + 1} (${iso(r.firstBoundary + k * MINUTE)}) over [instant, instant + ${jitterSeconds} s):`);
    console.log(`  due times: ${fmtSpread(r.dueSpreadPerMinute[k]!, jitterSeconds)}`);
    console.log(`  first arrivals: ${fmtSpread(s, jitterSeconds)}`);
  });
  for (const w of r.windows) {
    const per = names.map((n) => `${n} ${(cpuMs(w.cpu, n) / Math.max(1, w.arrived)).toFixed(2)}`).join(', ');
    console.log(`firing window ${w.minute + 1} (${w.seconds.toFixed(1)} s, ${w.arrived} arrivals; machine before it: ${w.load}): ${fmtCpu(w.cpu)}; ms CPU per occurrence: ${per}`);
    console.log(`  ferry threads: ${formatThreads(w.threads)}`);
    if (w.delivery !== undefined) {
      const perDelivery = names.map((n) => `${n} ${(cpuMs(w.delivery!.cpu, n) / Math.max(1, w.arrived)).toFixed(2)}`).join(', ');
      console.log(`  of which delivery, from 0.5 s before the instant (${w.delivery.seconds.toFixed(1)} s): ${fmtCpu(w.delivery.cpu)}; ms CPU per occurrence: ${perDelivery}`);
      console.log(`    ferry threads: ${formatThreads(w.delivery.threads)}`);
    }
  }
  const perWhole = names.map((n) => `${n} ${(cpuMs(r.whole, n) / occurrences).toFixed(2)}`).join(', ');
  console.log(`whole ${minutes} minute(s) (${r.whole.seconds.toFixed(0)} s): ${fmtCpu(r.whole)}; ms CPU per occurrence: ${perWhole}`);
  console.log(`ferry RSS: ${r.rssBefore} MiB before the first measured minute, max ${r.rssMax} MiB during, peak (VmHWM) ${r.rssPeak} MiB`);
  if (r.storage !== undefined) console.log(`storage per occurrence: ${r.storage}`);
  console.log(`log: ${formatLog(r.log)}`);
  const w = r.windows;
  console.log(
    `\nSUMMARY ${title}: exactly once ${exact ? 'yes' : 'NO'} (missing ${r.missing.length}, duplicates ${r.duplicates.length}); ` +
      `creation p50/p99/max ${r.creation.p50}/${r.creation.p99}/${r.creation.max} ms (target p99 ≤ 1000: ${r.creation.p99 <= 1000 ? 'met' : 'MISSED'}), ` +
      `created by the instant ${fmtShare(r.creation)}; ` +
      `delivery${jitterSeconds > 0 ? ' from the due time' : ''} p50/p99/max ${r.delivery.p50}/${r.delivery.p99}/${r.delivery.max} ms (target p99 ≤ 2000: ${r.delivery.p99 <= 2000 ? 'met' : 'MISSED'}); ` +
      (jitterSeconds > 0
        ? `arrivals spread over ${jitterSeconds} s (largest second ≤ 2× the mean, KS ≤ 10 %, none before the instant): ` +
          `${r.arrivalSpreadPerMinute.every(spreadMet) ? 'met' : 'MISSED'} (` +
          r.arrivalSpreadPerMinute.map((x) => `${x.maxRatio.toFixed(2)}×, KS ${(x.ks * 100).toFixed(1)} %, before ${x.before}, after ${x.after}`).join('; ') +
          '); '
        : '') +
      `ferry ${(cpuMs(r.whole, names[0]!) / occurrences).toFixed(2)} ms CPU/occurrence over the minutes, ` +
      `firing windows ${w.map((x) => `${x.seconds.toFixed(1)} s at ${(cpuMs(x.cpu, names[0]!) / x.seconds / 1000).toFixed(2)} cores`).join(', ')}` +
      (w.some((x) => x.delivery !== undefined)
        ? ` (from the instant: ${w.map((x) => (x.delivery ? `${x.delivery.seconds.toFixed(1)} s at ${(cpuMs(x.delivery.cpu, names[0]!) / x.delivery.seconds / 1000).toFixed(2)} cores` : '?')).join(', ')})`
        : '') +
      '; ' +
      `RSS ${r.rssBefore} → max ${r.rssMax} MiB (peak ${r.rssPeak}); ` +
      `load: other processes used ${w.map((x) => otherCores(x.delivery?.cpu ?? x.cpu).toFixed(2)).join(', ')} cores in the ${w.some((x) => x.delivery) ? 'delivery parts' : 'windows'}, ` +
      `machine at the start: ${startLoad}`,
  );
}

const opts = parseOptions();
const startLoad = machineLoad();
console.log(`machine at the start: ${startLoad}`);
// test/support/deployment.ts reads the backend when it is loaded: set it before any mode's module imports it.
process.env.FERRY_TEST_BACKEND = opts.mode === 'distributed' ? 'cassandra' : 'embedded';
const lead = `, occurrences enqueued ${opts.scheduleLeadMs / 1000} s ahead${opts.jitterSeconds > 0 ? `, jitter ${opts.jitterSeconds} s` : ''}`;
if (opts.mode === 'embedded') {
  const { embedded } = await import('./schedules-embedded.js');
  report(await embedded(opts), `embedded, ${opts.scheduleCount} × ${opts.timingKind} every minute${lead}`, ['ferry', 'bench'], opts, startLoad);
} else if (opts.mode === 'idle') {
  const { idle } = await import('./schedules-idle.js');
  await idle(opts);
} else {
  const { distributed } = await import('./schedules-distributed.js');
  const result = await distributed(opts);
  report(result, `distributed (Cassandra + Kafka, 1 process), ${opts.scheduleCount} × ${opts.timingKind} every minute${lead}`, ['ferry#1', 'cassandra', 'kafka', 'bench'], opts, startLoad);
}
