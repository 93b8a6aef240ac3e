import type { HeaderEntry, RequestCallbacks } from '../request.js';
import type { SchedulePolicy } from './policy.js';
import type { RunState } from './runs.js';
import type { Timing } from './timing.js';

/** `ended`: its run limit was reached or its timing fires no more; it never fires again. */
export type ScheduleStatus = 'active' | 'paused' | 'ended';
/**
 * What the latest occurrence did: created a request, or was skipped because the monthly allowance was reached or
 * (overlap `skip`, or `buffer_one` with one already waiting) the previous occurrence's request was still active.
 */
export type RunOutcome = 'enqueued' | 'skipped_usage_limit' | 'skipped_overlap';
/** Why a paused schedule is paused: by a call, or by its policy after consecutive failed occurrences. */
export type PauseReason = 'user' | 'failures';

/** The request every occurrence creates: always POST, the body as application/json. */
export interface ScheduleRequest {
  readonly url: string;
  /** Destination headers in the caller's order and spelling. */
  readonly headers: readonly HeaderEntry[];
  /** The JSON text of the body, as UTF-8 bytes; null for no body. */
  readonly body: Uint8Array | null;
  /** Additional attempts after the first, 0 to 19. */
  readonly retry: number;
  /** The flow keys every occurrence's request carries (`src/domain/flow/`), in the order given; at most four. */
  readonly flowKeys: readonly string[];
  /** The callbacks every occurrence's request carries; absent or null for none. */
  readonly callbacks?: RequestCallbacks | null;
  /** The queue of every occurrence's request; `default` for schedules stored before it could be chosen. */
  readonly queue: string;
  /** The per-attempt timeout of every occurrence's request, in seconds. */
  readonly timeoutSeconds: number;
  /** The metadata every occurrence's request carries. */
  readonly metadata: Readonly<Record<string, string>>;
}

/** A schedule as stored. Times are milliseconds since the Unix epoch, UTC. */
export interface StoredSchedule {
  readonly id: string;
  readonly projectId: string;
  /** 1 to 120 bytes, trimmed. */
  readonly name: string;
  readonly timing: Timing;
  readonly status: ScheduleStatus;
  /** Set while paused: who paused it. */
  readonly pauseReason: PauseReason | null;
  readonly policy: SchedulePolicy;
  readonly request: ScheduleRequest;
  /** Counters, recent runs and firing state (see `runs.ts`). */
  readonly runs: RunState;
  /** The next occurrence; null while paused. Its timer is what fires it. */
  readonly nextRunAt: number | null;
  /**
   * The instant of the latest occurrence that fired (or was skipped), not when it was processed. It may lie ahead
   * of now: an occurrence is fired ahead of its instant, and reads as a run only from then on (see
   * `enqueued-ahead.ts`).
   */
  readonly lastRunAt: number | null;
  readonly lastRunOutcome: RunOutcome | null;
  /** The occurrence fired before the latest: the last run while the latest one's instant is still ahead. */
  readonly previousRunAt: number | null;
  readonly previousRunOutcome: RunOutcome | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Incremented on every change; conditional updates compare it. */
  readonly version: number;
}

/** Fields a conditional update may change. */
export type SchedulePatch = Partial<
  Pick<
    StoredSchedule,
    | 'name' | 'timing' | 'status' | 'pauseReason' | 'policy' | 'request' | 'runs' | 'nextRunAt' | 'lastRunAt' | 'lastRunOutcome' | 'previousRunAt' | 'previousRunOutcome' | 'updatedAt'
  >
>;
