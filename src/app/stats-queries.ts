import type { Clock } from '../domain/clock.js';
import type { Project } from '../domain/project.js';
import { addCounts, failureRate, isZero, windowStart, zeroCounts, type StatCounts } from '../domain/stats.js';
import type { QueueWaiting, StatsStore } from '../ports/stats.js';
import type { BudgetQueries } from './budget-queries.js';
import { addByMinute, type StatsRecorder } from './stats-recorder.js';

/** Queues the backlog lists at most, those waiting longest first. */
export const MAX_BACKLOG_QUEUES = 100;

/** One queue's waiting and running requests, and what its budget holds back. */
export interface QueueBacklogView {
  readonly queue: string;
  /** Null where storage cannot count them (distributed; see `StatsStore.backlog`). */
  readonly queued: number | null;
  readonly scheduled: number | null;
  readonly delivering: number;
  /** Requests the queue's budget holds back now (rate, concurrency or pause): some of `queued`. */
  readonly held: number;
  readonly paused: boolean;
  readonly oldestDueAt: number | null;
}

/** The overview of a project: the last day by minute, and its backlog now. */
export interface StatsView {
  readonly asOf: number;
  /** The window's first minute; the window ends with the minute of `asOf`. */
  readonly from: number;
  /** Minutes with any count, oldest first. */
  readonly minutes: ReadonlyArray<{ readonly minute: number; readonly counts: StatCounts }>;
  readonly totals: StatCounts;
  readonly failureRate: number | null;
  readonly backlog: readonly QueueBacklogView[];
  /** Whether `queued` and `scheduled` are counted (false on distributed storage). */
  readonly backlogCounted: boolean;
  /** Whether the project waits on more requests than one reading counts (the counts are then lower bounds). */
  readonly backlogTruncated: boolean;
}

/**
 * The overview: stored per-minute totals of every process, with this process's own totals that may not be stored
 * yet in place of its stored ones, so counts made here show at once; and the backlog by queue, from storage where
 * it can count it and from the budgets' live state (in flight, held back, paused).
 */
export class StatsQueries {
  constructor(
    private readonly store: StatsStore,
    private readonly recorder: StatsRecorder | null,
    private readonly budgets: BudgetQueries,
    private readonly clock: Clock,
  ) {}

  async of(project: Project): Promise<StatsView> {
    const asOf = this.clock.now();
    const from = windowStart(asOf);
    const [stored, backlog, queues] = await Promise.all([
      this.store.minutes(project.id, from),
      this.store.backlog(project.id),
      this.budgets.list(project, 'queue', { limit: MAX_BACKLOG_QUEUES }),
    ]);
    const held = this.recorder?.held(project.id) ?? new Map<number, StatCounts>();
    const byMinute = new Map<number, StatCounts>();
    for (const row of stored) {
      if (row.processId === this.recorder?.processId && held.has(row.minute)) continue;
      addByMinute(byMinute, row.minute, row.counts);
    }
    for (const [minute, counts] of held) if (minute >= from) addByMinute(byMinute, minute, counts);
    const minutes = [...byMinute.entries()]
      .filter(([, counts]) => !isZero(counts))
      .sort(([a], [b]) => a - b)
      .map(([minute, counts]) => ({ minute, counts }));
    const totals = zeroCounts();
    for (const m of minutes) addCounts(totals, m.counts);
    const waiting = new Map<string, QueueWaiting>((backlog?.queues ?? []).map((q) => [q.queue, q]));
    const live = new Map(queues.items.map((q) => [q.name, q]));
    const rows: QueueBacklogView[] = [];
    for (const name of new Set([...waiting.keys(), ...live.keys()])) {
      const w = waiting.get(name);
      const b = live.get(name);
      const heldBack = b === undefined ? 0 : b.state.waiting.rate + b.state.waiting.concurrency + b.state.waiting.paused;
      const row: QueueBacklogView = {
        queue: name,
        queued: backlog === null ? null : (w?.queued ?? 0),
        scheduled: backlog === null ? null : (w?.scheduled ?? 0),
        // Storage's count where it keeps one (a snapshot of the rows), else what the delivering processes report.
        delivering: w?.delivering ?? b?.state.inFlight ?? 0,
        held: heldBack,
        paused: b?.paused ?? false,
        oldestDueAt: w?.oldestDueAt ?? null,
      };
      // Without counts, every queue the project uses is listed: nothing says which of them has requests waiting.
      if (backlog === null || row.paused || row.delivering > 0 || row.held > 0 || (row.queued ?? 0) > 0 || (row.scheduled ?? 0) > 0) rows.push(row);
    }
    rows.sort(byLongestWait);
    return {
      asOf,
      from,
      minutes,
      totals,
      failureRate: failureRate(totals),
      backlog: rows.slice(0, MAX_BACKLOG_QUEUES),
      backlogCounted: backlog !== null,
      backlogTruncated: backlog?.truncated ?? false,
    };
  }
}

/** The queue whose oldest request has waited longest first; then the most held back, the most waiting, the name. */
function byLongestWait(a: QueueBacklogView, b: QueueBacklogView): number {
  const ao = a.oldestDueAt ?? Number.MAX_SAFE_INTEGER;
  const bo = b.oldestDueAt ?? Number.MAX_SAFE_INTEGER;
  if (ao !== bo) return ao - bo;
  if (a.held !== b.held) return b.held - a.held;
  const aw = (a.queued ?? 0) + (a.scheduled ?? 0);
  const bw = (b.queued ?? 0) + (b.scheduled ?? 0);
  if (aw !== bw) return bw - aw;
  return a.queue < b.queue ? -1 : a.queue > b.queue ? 1 : 0;
}
