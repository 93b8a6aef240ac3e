import { setTimeout as sleep } from 'node:timers/promises';
import { shardOf } from '../../src/domain/shards.js';
import type { Api } from './api-client.js';
import { TEST_SHARDS } from './deployment.js';
import { failedCalls, type Load } from './ledger-load.js';

/** One attempt as it reached the destination, with the process that sent it (as the gate in front saw it). */
export interface Arrival {
  readonly id: string;
  readonly attempt: number;
  /** The sending process's name, or 'unknown' when the gate could not tell. */
  readonly from: string;
  readonly at: number;
  readonly scheduleId: string | undefined;
  /** What the destination answered, when not 200. */
  readonly status?: number;
}

/** A fault the test caused, from when it began to when the cluster was whole again. */
export interface Fault {
  readonly what: string;
  readonly from: number;
  to: number;
}

/** A request delivered more than once, and why. */
export interface Duplicate {
  readonly id: string;
  readonly arrivals: readonly Arrival[];
  /** Null when no fault explains it. */
  readonly reason: string | null;
}

export interface LedgerFigures {
  readonly acknowledged: number;
  /** Acknowledged requests that arrived at least once. */
  readonly delivered: number;
  /** Acknowledged requests that never arrived. */
  readonly lost: readonly string[];
  /** Acknowledged requests that arrived but do not read back `succeeded`. */
  readonly notSucceeded: readonly string[];
  readonly duplicates: readonly Duplicate[];
  /** Requests that arrived without having been acknowledged (their call failed after storing them). */
  readonly unacknowledgedArrivals: number;
  /** Calls answered other than 202, by status (0: no answer). */
  readonly failedCalls: Record<string, number>;
  /** Times a shard's deliveries went from one process to another and back within `INTERLEAVE_MS`. */
  readonly interleaved: number;
}

/** A shard handed from X to Y and back to X this fast was delivered by both at once, not moved. */
const INTERLEAVE_MS = 5_000;
/** How long after a fault ended its effects (a retry's backoff, a rebalance) may still show. */
const FAULT_TAIL_MS = 15_000;
/**
 * How long before a fault an arrival may be whose outcome the fault kept from being recorded: the destination's
 * answer and the outcome's write still to come, seconds on a machine as loaded as the suite's (an arrival more than a second
 * before a process was cut off was sent again by the new owner).
 */
const FAULT_LEAD_MS = 3_000;

/**
 * Why `id` was delivered more than once: an attempt sent again (its outcome was not recorded: the sender or the
 * storage it wrote to was lost) or a later attempt after one whose answer was lost, within a fault's window.
 */
function explain(arrivals: readonly Arrival[], faults: readonly Fault[]): string | null {
  const [first, second] = arrivals;
  if (!first || !second) return null;
  // The latest fault whose window holds the first arrival: the one just before it, not an older one's tail.
  const fault = faults.findLast((f) => first.at >= f.from - FAULT_LEAD_MS && first.at <= f.to + FAULT_TAIL_MS);
  if (!fault) return null;
  const again = second.attempt === first.attempt ? 'attempt sent again' : `attempt ${second.attempt} after ${first.attempt}`;
  const by = second.from === first.from ? `by ${first.from}` : `by ${second.from} after ${first.from}`;
  return `${again} ${by} (outcome not recorded during ${fault.what})`;
}

/** Counts, per shard, the returns to a process that had delivered it less than INTERLEAVE_MS before another did. */
export function interleavings(arrivals: readonly Arrival[]): number {
  const byShard = new Map<number, Arrival[]>();
  for (const a of arrivals) {
    if (a.from === 'unknown') continue;
    const shard = shardOf(a.id, TEST_SHARDS);
    byShard.set(shard, [...(byShard.get(shard) ?? []), a]);
  }
  let count = 0;
  for (const list of byShard.values()) {
    list.sort((x, y) => x.at - y.at);
    const runs: Array<{ from: string; start: number; end: number }> = [];
    for (const a of list) {
      const last = runs.at(-1);
      if (last?.from === a.from) last.end = a.at;
      else runs.push({ from: a.from, start: a.at, end: a.at });
    }
    for (let i = 1; i + 1 < runs.length; i++) {
      if (runs[i - 1]!.from === runs[i + 1]!.from && runs[i + 1]!.start - runs[i - 1]!.end < INTERLEAVE_MS) count += 1;
    }
  }
  return count;
}

/**
 * Closes the books of one load: waits (up to `deadlineMs`) until every acknowledged request arrived, reads each back
 * through `api`, and counts duplicates (each with its reason), failed calls and interleaved shard deliveries.
 */
export async function settle(load: Load, arrivals: () => readonly Arrival[], api: Api, faults: readonly Fault[], deadlineMs = 120_000): Promise<LedgerFigures> {
  const ids = [...load.acknowledged.keys()];
  const arrived = (): Map<string, Arrival[]> => {
    const map = new Map<string, Arrival[]>();
    for (const a of arrivals()) map.set(a.id, [...(map.get(a.id) ?? []), a]);
    return map;
  };
  const until = Date.now() + deadlineMs;
  let byId = arrived();
  while (ids.some((id) => !byId.has(id)) && Date.now() < until) {
    await sleep(250);
    byId = arrived();
  }
  const lost = ids.filter((id) => !byId.has(id));
  const notSucceeded = await readBack(api, ids.filter((id) => byId.has(id)));
  const duplicates = [...byId]
    .filter(([, list]) => list.length > 1)
    .map(([id, list]) => ({ id, arrivals: list, reason: explain(list, faults) }));
  return {
    acknowledged: ids.length,
    delivered: ids.length - lost.length,
    lost,
    notSucceeded,
    duplicates,
    unacknowledgedArrivals: [...byId.keys()].filter((id) => !load.acknowledged.has(id)).length,
    failedCalls: failedCalls(load.calls),
    interleaved: interleavings(arrivals()),
  };
}

/** The IDs among `ids` that do not read back `succeeded` within a minute (24 reads at a time). */
export async function readBack(api: Api, ids: readonly string[]): Promise<string[]> {
  const pending = [...ids];
  const bad: string[] = [];
  const until = Date.now() + 60_000;
  await Promise.all(
    Array.from({ length: 24 }, async () => {
      for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
        for (;;) {
          const res = await api.call<{ status: string }>('GET', `/requests/${id}`).catch(() => null);
          if (res?.status === 200 && res.body.data.status === 'succeeded') break;
          if (Date.now() > until) {
            bad.push(id);
            break;
          }
          await sleep(200);
        }
      }
    }),
  );
  return bad;
}

interface LostDetail {
  status: string;
  created_at: string;
  scheduled_at: string | null;
  waiting_for: unknown;
  attempts: Array<{ attempt_number: number; status: string; response_status_code: number | null; error_message: string | null; retry: { next_attempt_at: string } | null }>;
}

/**
 * Where the lost requests stand, for a report that cannot hold the processes' logs: how many per shard, and what
 * the first few read back as (status, when due, what holds them, their last attempt and when the next is due).
 */
export async function describeLost(api: Api, lost: readonly string[]): Promise<string> {
  if (lost.length === 0) return 'lost: none';
  const byShard: Record<number, number> = {};
  for (const id of lost) byShard[shardOf(id, TEST_SHARDS)] = (byShard[shardOf(id, TEST_SHARDS)] ?? 0) + 1;
  const firstFew = await Promise.all(
    lost.slice(0, 5).map(async (id) => {
      const res = await api.call<LostDetail>('GET', `/requests/${id}`).catch(() => null);
      if (res?.status !== 200) return `${id}: read back ${res?.status ?? 'no answer'}`;
      const d = res.body.data;
      const last = d.attempts.at(-1);
      const attempt = last
        ? `attempt ${last.attempt_number} ${last.status} (${last.response_status_code ?? last.error_message}), next ${last.retry?.next_attempt_at ?? 'none'}`
        : 'no attempt';
      return `${id} (shard ${shardOf(id, TEST_SHARDS)}): ${d.status}, created ${d.created_at}, due ${d.scheduled_at}, waiting for ${JSON.stringify(d.waiting_for)}, ${attempt}`;
    }),
  );
  return [`lost ${lost.length}, by shard ${JSON.stringify(byShard)}; the first:`, ...firstFew.map((l) => `  ${l}`)].join('\n');
}

/** One line per figure, for the test's output. */
export function describeLedger(name: string, f: LedgerFigures, extra: Record<string, unknown> = {}): string {
  const reasons: Record<string, number> = {};
  for (const d of f.duplicates) reasons[d.reason ?? 'UNEXPLAINED'] = (reasons[d.reason ?? 'UNEXPLAINED'] ?? 0) + 1;
  return [
    `ledger ${name}: acknowledged ${f.acknowledged}, delivered ${f.delivered}, lost ${f.lost.length}, not succeeded ${f.notSucceeded.length}`,
    `  duplicates ${f.duplicates.length} ${JSON.stringify(reasons)}; arrived unacknowledged ${f.unacknowledgedArrivals}`,
    `  failed calls ${JSON.stringify(f.failedCalls)}; interleaved shard deliveries ${f.interleaved}`,
    ...Object.entries(extra).map(([k, v]) => `  ${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`),
  ].join('\n');
}

/** Per schedule: the requests it made that arrived, and those that arrived more than once (each with its reason). */
export function scheduleLedger(arrivals: readonly Arrival[], scheduleIds: readonly string[], faults: readonly Fault[]) {
  return scheduleIds.map((scheduleId) => {
    const byId = new Map<string, Arrival[]>();
    for (const a of arrivals) if (a.scheduleId === scheduleId) byId.set(a.id, [...(byId.get(a.id) ?? []), a]);
    const duplicates = [...byId].filter(([, list]) => list.length > 1).map(([id, list]) => ({ id, arrivals: list, reason: explain(list, faults) }));
    return { scheduleId, requests: [...byId.keys()], duplicates };
  });
}
