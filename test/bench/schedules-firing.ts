/**
 * The firing run of the schedule benchmark, on any deployment: creates the schedules through the API, measures
 * CPU per firing window and over the measured minutes, waits for the stragglers, then has the deployment stop and
 * read its storage and analyses it (`schedules-occurrences.ts`).
 */
import type { Api } from '../support/api-client.js';
import type { FerryProcess } from '../support/ferry-process.js';
import type { CpuUse } from './cpu-meter.js';
import type { Receiver } from './receiver.js';
import {
  ceilMinute, fmtCpu, forEachBounded, iso, machineLoad, memoryOf, MINUTE, rssSampler, sleep, sleepUntil, type BenchOptions, type LogCounts,
} from './schedules-measure.js';
import { analyse, type Analysis, type Stored } from './schedules-occurrences.js';
import { formatThreads, threadMeter, type ThreadUse } from './thread-meter.js';

export interface Created {
  ids: string[];
  ms: number;
  retries: number;
}

/** Creates `count` schedules through POST /schedules, `concurrency` at once; a 429/5xx is retried with the same key. */
export async function createSchedules(
  api: Api,
  count: number,
  concurrency: number,
  definition: (i: number) => Record<string, unknown>,
): Promise<Created> {
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

export interface Window {
  minute: number;
  boundary: number;
  /** From (boundary − the service's lead − 0.5 s) to the last arrival of the minute (or the next window). */
  seconds: number;
  arrived: number;
  cpu: CpuUse;
  /** The Ferry process's threads: on a CPU, and runnable but waiting for one. */
  threads: ThreadUse;
  /** Cron with a lead: the part of the window from 0.5 s before the boundary, when only delivery is left. */
  delivery?: { seconds: number; cpu: CpuUse; threads: ThreadUse };
  /** `machineLoad()` just before the window's delivery part (or the window). */
  load: string;
}

export interface FiringResult extends Analysis {
  created: Created;
  firstBoundary: number;
  creationEndedBeforeMs: number;
  windows: Window[];
  whole: CpuUse;
  rssBefore: number;
  rssMax: number;
  rssPeak: number;
  log: LogCounts;
  storage?: string;
}

export interface Deployment {
  api: Api;
  dest: Receiver;
  ferry: FerryProcess;
  log: LogCounts;
  meter(): { stop(): CpuUse };
  /** Stops the service and reads what it stored. */
  stopAndRead(): Promise<Stored>;
  storage?: () => Promise<{ stop(calls: number): Promise<string> }>;
}

/** With jitter, how long after the end of an occurrence's window its arrival is still waited for. */
const JITTER_MARGIN_MS = 5_000;

export async function firing(d: Deployment, opts: BenchOptions): Promise<FiringResult> {
  const { scheduleCount, minutes, timingKind, scheduleLeadMs, jitterSeconds } = opts;
  const jitterMs = jitterSeconds * 1000;
  const url = `${d.dest.url}/occurrence`;
  // Long enough to create them all, and for their first occurrences to be enqueued after that.
  const createLeadMs = opts.createLeadMs ?? Math.ceil(30 + scheduleCount / 50) * 1000 + scheduleLeadMs;
  // Interval timing: the first measured minute is fixed before creating, as every starts_at must be in the future.
  const intervalStart = ceilMinute(Date.now() + createLeadMs);
  const offsetOf = (i: number) => (timingKind === 'interval' ? (i % 60) * 1000 : 0);
  const timing = (i: number) =>
    timingKind === 'cron'
      ? { type: 'cron', expression: '* * * * *', timezone: 'UTC' }
      : { type: 'interval', every_seconds: 60, starts_at: iso(intervalStart + offsetOf(i)) };
  console.log(`creating ${scheduleCount} schedules (${timingKind}), ${opts.concurrency} at once …`);
  const created = await createSchedules(d.api, scheduleCount, opts.concurrency, (i) => ({
    name: `bench-${i}`,
    timing: timing(i),
    request: { url, body: { i }, headers: { 'x-bench': 'schedules' }, retry: 2 },
    ...(jitterSeconds > 0 ? { policy: { jitter_seconds: jitterSeconds } } : {}),
  }));
  const createdAt = Date.now();
  console.log(`  created in ${created.ms} ms (${Math.round((scheduleCount / created.ms) * 1000)}/s, ${created.retries} retries)`);
  const firstBoundary = timingKind === 'cron' ? ceilMinute(createdAt + opts.marginMs) : intervalStart;
  if (createdAt > firstBoundary - scheduleLeadMs - 1000) {
    console.log(`  warning: creation ended ${createdAt - (firstBoundary - scheduleLeadMs)} ms after the first measured occurrences were due to be enqueued`);
  }
  const windowEnd = firstBoundary + minutes * MINUTE;
  console.log(
    `  first measured boundary ${iso(firstBoundary)} (${firstBoundary - createdAt} ms after creation ended), ${minutes} minute(s); ` +
      `the service enqueues occurrences ${scheduleLeadMs} ms ahead (FERRY_SCHEDULE_LEAD_MS)` +
      (jitterSeconds > 0 ? `; each due up to ${jitterSeconds} s after its instant (jitter)` : ''),
  );
  // A minute's window closes before the next minute's occurrences are enqueued; its jittered arrivals must fit.
  if (timingKind === 'cron' && jitterMs + JITTER_MARGIN_MS > MINUTE - scheduleLeadMs - 600) {
    console.log(`  warning: a minute's arrivals spread over ${jitterSeconds} s may outlast its firing window (${MINUTE - scheduleLeadMs - 600} ms from the instant)`);
  }

  // Every measured interval is shifted back by the lead, so that it holds the creation of its occurrences too:
  // the whole one holds the creation and delivery of exactly the measured minutes' occurrences.
  const rssBefore = memoryOf(d.ferry.child.pid).rss;
  await sleepUntil(firstBoundary - scheduleLeadMs - 1000);
  const rss = rssSampler(d.ferry.child.pid);
  const storage = await d.storage?.();
  const arrivedBefore = d.dest.count();
  const whole = d.meter();
  const windows: Window[] = [];
  for (let k = 0; k < minutes; k++) {
    const boundary = firstBoundary + k * MINUTE;
    await sleepUntil(boundary - scheduleLeadMs - 500);
    const meter = d.meter();
    const threadsOf = threadMeter(d.ferry.child.pid);
    const t0 = Date.now();
    const from = d.dest.count();
    const last = boundary + MINUTE - scheduleLeadMs - 600;
    // Cron with a lead: the occurrences are created ahead, then all delivered from the boundary; that part is
    // measured on its own too.
    let deliveryPart: { t1: number; meter: { stop(): CpuUse }; threads: { stop(): ThreadUse } } | undefined;
    let load = machineLoad();
    if (timingKind === 'cron' && scheduleLeadMs > 0) {
      await sleepUntil(boundary - 600);
      load = machineLoad();
      await sleepUntil(boundary - 500);
      deliveryPart = { t1: Date.now(), meter: d.meter(), threads: threadMeter(d.ferry.child.pid) };
    }
    // Cron: every occurrence of the minute is due at its boundary (with jitter, within the jitter after it); the
    // window closes at its last arrival. Interval: occurrences are spread over the minute, the window is the minute.
    while (Date.now() < last && (timingKind === 'interval' || d.dest.count() - from < scheduleCount)) await sleep(20);
    const arrived = d.dest.count() - from;
    const delivery = deliveryPart && { seconds: (Date.now() - deliveryPart.t1) / 1000, cpu: deliveryPart.meter.stop(), threads: deliveryPart.threads.stop() };
    windows.push({ minute: k, boundary, seconds: (Date.now() - t0) / 1000, arrived, cpu: meter.stop(), threads: threadsOf.stop(), load, ...(delivery ? { delivery } : {}) });
    console.log(`  minute ${k + 1} (machine before it: ${load}): ${arrived} arrivals in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${fmtCpu(windows.at(-1)!.cpu)}`);
    console.log(`    ferry threads: ${formatThreads(windows.at(-1)!.threads)}`);
    if (delivery) console.log(`    from 0.5 s before the instant: ${delivery.seconds.toFixed(1)} s; ${fmtCpu(delivery.cpu)}; ferry threads: ${formatThreads(delivery.threads)}`);
  }
  await sleepUntil(windowEnd - scheduleLeadMs - 500);
  const wholeCpu = whole.stop();
  // With jitter, the last measured occurrences are due up to the jitter after their instant (interval timing:
  // the last one's instant is 59 s into the minute), which can be later than the end of the measured minutes.
  const lastOffset = offsetOf(Math.min(scheduleCount, 60) - 1);
  if (jitterMs > 0) await sleepUntil(firstBoundary + (minutes - 1) * MINUTE + lastOffset + jitterMs + JITTER_MARGIN_MS);
  // Stragglers of the measured minutes (bounded); occurrences of later boundaries are left out of the analysis.
  const wanted = scheduleCount * minutes;
  const straggleUntil = Date.now() + 120_000;
  while (d.dest.count() - arrivedBefore < wanted && Date.now() < straggleUntil) await sleep(100);
  const storageReport = storage ? await storage.stop(wanted) : undefined;
  const rssMax = rss.stop();
  const rssPeak = memoryOf(d.ferry.child.pid).hwm;
  const stored = await d.stopAndRead();
  const analysis = analyse({ ids: created.ids, firstBoundary, minutes, offsetOf, scheduleLeadMs, jitterSeconds }, stored, d.dest.arrivals);
  return {
    ...analysis,
    created,
    firstBoundary,
    creationEndedBeforeMs: firstBoundary - createdAt,
    windows,
    whole: wholeCpu,
    rssBefore,
    rssMax,
    rssPeak,
    log: d.log,
    ...(storageReport === undefined ? {} : { storage: storageReport }),
  };
}
