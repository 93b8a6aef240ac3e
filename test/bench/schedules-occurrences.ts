/**
 * What storage holds after a schedule benchmark run, and what it says: every (schedule, instant) of the measured
 * minutes must have exactly one request, and the lateness of its creation, claim, first attempt and arrival. With
 * jitter, each request is due at its instant plus a delay drawn from the schedule and the instant: lateness is
 * measured from that due time, and the spread of due times and first arrivals over each minute's window is told.
 */
import { jitterDelayMs } from '../../src/domain/schedule/jitter.js';
import { spreadOf, type Spread } from './jitter-spread.js';
import type { Arrival } from './receiver.js';
import { MINUTE, stats, type Stats } from './schedules-measure.js';

/** One request of an occurrence as stored, with the instant its idempotency record names. */
export interface StoredOccurrence {
  requestId: string;
  scheduleId: string | null;
  createdAt: number;
  status: string;
  /** When it was due, when later than its creation (a request created as of its due time or after it has none). */
  scheduledAt: number | null;
  /** When delivery claimed it (the request's started_at) and when its first attempt started. */
  startedAt: number | null;
  firstAttemptAt: number | null;
  /** From the idempotency record `occurrence:<instant>:<revision>` in the schedule's scope that names this request. */
  at: number | null;
  /** When its firing claimed that record: when the occurrence was fired, ahead of its instant or not. */
  firedAt: number | null;
}

export interface OccurrenceKey {
  scheduleId: string;
  at: number;
  /** When the record was claimed (or last taken over). */
  claimedAt: number | null;
  requestIds: string[];
  /** The claim was never completed (no outcome recorded). */
  open: boolean;
}

/** Everything read back from storage once the service stopped. */
export interface Stored {
  occurrences: StoredOccurrence[];
  keys: OccurrenceKey[];
  /** Schedules by their last_run_outcome ('none' when never run). */
  schedules: Map<string, number>;
}

export function occurrenceKey(scheduleId: string, key: string, outcome: string | null, claimedAt: number | null): OccurrenceKey | null {
  if (!key.startsWith('occurrence:')) return null;
  const at = Number(key.split(':')[1]);
  let requestIds: string[] = [];
  if (outcome !== null) {
    try {
      requestIds = (JSON.parse(outcome) as Array<{ id: string }>).map((a) => a.id);
    } catch {
      requestIds = [];
    }
  }
  return { scheduleId, at, claimedAt, requestIds, open: outcome === null };
}

export function joinOccurrences(
  requests: Array<Omit<StoredOccurrence, 'at' | 'firedAt'>>,
  keys: OccurrenceKey[],
): { occurrences: StoredOccurrence[]; keys: OccurrenceKey[] } {
  const keyOf = new Map<string, OccurrenceKey>();
  for (const k of keys) for (const id of k.requestIds) keyOf.set(id, k);
  return {
    occurrences: requests.map((r) => ({ ...r, at: keyOf.get(r.requestId)?.at ?? null, firedAt: keyOf.get(r.requestId)?.claimedAt ?? null })),
    keys,
  };
}

/** The measured occurrences: schedule i fires at firstBoundary + offsetOf(i) + k minutes, k < minutes. */
export interface MeasuredRun {
  /** Schedule IDs in creation order. */
  ids: readonly string[];
  firstBoundary: number;
  minutes: number;
  offsetOf(i: number): number;
  /** How long before its instant the service enqueues an occurrence. */
  scheduleLeadMs: number;
  /** The schedules' `jitter_seconds`; 0 for none. */
  jitterSeconds: number;
}

/** Due times against the draw the bench makes itself (`jitterDelayMs`, every timing here firing each minute). */
export interface DueCheck {
  /** Stored due time (scheduled_at) equal to instant + the drawn delay. */
  matching: number;
  /** Stored due time, but another one: e.g. `${scheduleId}@${instant}: due +x ms, drawn +y ms`. */
  differing: number;
  example: string | null;
  /** No stored due time (created as of it or after it): instant + the drawn delay is taken. */
  unset: number;
}

export interface Analysis {
  expected: number;
  found: number;
  missing: Array<{ scheduleId: string; at: number }>;
  duplicates: Array<{ scheduleId: string; at: number; requests: string[] }>;
  /** Requests beyond one per schedule and expected creation minute (see `analyse`). */
  duplicatesByCreatedMinute: number;
  unexpectedInWindow: number;
  orphans: number;
  openClaims: number;
  notSucceeded: Map<string, number>;
  /** When the occurrence was fired − instant: negative when its request was created ahead of its instant. */
  creation: Stats;
  creationPerMinute: Stats[];
  /** Fired − due time: negative when created ahead of when it is due (with jitter, its instant + its delay). */
  creationByDue: Stats;
  /** The request's started_at (claimed by delivery) and its first attempt's start, − its due time. */
  claim: Stats;
  firstAttempt: Stats;
  /** First arrival at the destination − its due time (the instant without jitter). */
  delivery: Stats;
  deliveryPerMinute: Stats[];
  dueCheck: DueCheck;
  /** With jitter, per measured minute: due times and first arrivals − instant, over [0, jitter). */
  dueSpreadPerMinute: Spread[];
  arrivalSpreadPerMinute: Spread[];
  notDelivered: number;
  duplicateDeliveries: number;
  headerMismatches: number;
  scheduleOutcomes: Map<string, number>;
}

export function analyse(run: MeasuredRun, stored: Stored, arrivals: readonly Arrival[]): Analysis {
  const { ids, firstBoundary, minutes, offsetOf, jitterSeconds } = run;
  const jitterMs = jitterSeconds * 1000;
  // Every timing of the bench fires each minute: the occurrence after `at` is a minute later.
  const drawnDelay = (scheduleId: string, at: number) => jitterDelayMs(scheduleId, at, jitterSeconds, at + MINUTE);
  const index = new Map(ids.map((id, i) => [id, i]));
  const expectedAt = (i: number, k: number) => firstBoundary + offsetOf(i) + k * MINUTE;
  const windowEnd = firstBoundary + minutes * MINUTE;
  // The instant a request was most likely created for: its created_at is that instant when it was enqueued ahead,
  // and within a minute after it otherwise (for cron, the minute of created_at).
  const instantCreatedFor = (createdAt: number, i: number) => Math.floor((createdAt - offsetOf(i)) / MINUTE) * MINUTE + offsetOf(i);

  // ---- exactly once: one request per (schedule, instant) of the measured minutes
  const byOccurrence = new Map<string, StoredOccurrence[]>();
  let unexpectedInWindow = 0;
  let orphans = 0;
  const byCreatedMinute = new Map<string, number>();
  for (const o of stored.occurrences) {
    if (o.scheduleId === null || !index.has(o.scheduleId)) continue;
    const i = index.get(o.scheduleId)!;
    if (o.at === null) orphans++;
    const at = o.at ?? instantCreatedFor(o.createdAt, i);
    if (at < firstBoundary || at >= windowEnd) continue;
    if ((at - firstBoundary - offsetOf(i)) % MINUTE !== 0) {
      unexpectedInWindow++;
      continue;
    }
    const key = `${o.scheduleId}@${at}`;
    const list = byOccurrence.get(key) ?? [];
    list.push(o);
    byOccurrence.set(key, list);
    // Independent of the idempotency records: per schedule, one request per minute of created_at.
    const minuteKey = `${o.scheduleId}@${instantCreatedFor(o.createdAt, i)}`;
    byCreatedMinute.set(minuteKey, (byCreatedMinute.get(minuteKey) ?? 0) + 1);
  }
  const missing: Analysis['missing'] = [];
  const duplicates: Analysis['duplicates'] = [];
  const creation: number[] = [];
  const claim: number[] = [];
  const firstAttempt: number[] = [];
  const creationPerMinute: number[][] = Array.from({ length: minutes }, () => []);
  const creationByDue: number[] = [];
  const dueOffsetsPerMinute: number[][] = Array.from({ length: minutes }, () => []);
  const dueCheck: DueCheck = { matching: 0, differing: 0, example: null, unset: 0 };
  const instantOf = new Map<string, { at: number; due: number; minute: number; scheduleId: string }>();
  const notSucceeded = new Map<string, number>();
  ids.forEach((id, i) => {
    for (let k = 0; k < minutes; k++) {
      const at = expectedAt(i, k);
      const list = byOccurrence.get(`${id}@${at}`) ?? [];
      if (list.length === 0) {
        missing.push({ scheduleId: id, at });
        continue;
      }
      if (list.length > 1) duplicates.push({ scheduleId: id, at, requests: list.map((o) => o.requestId) });
      const first = list.reduce((a, b) => (a.createdAt <= b.createdAt ? a : b));
      // created_at is never before the instant (an occurrence enqueued ahead is created as of it): when it was
      // really stored is told by its firing's claim of the idempotency record.
      const fired = (first.firedAt ?? first.createdAt) - at;
      creation.push(fired);
      creationPerMinute[k]!.push(fired);
      // Its own due time: as stored when it was created ahead of it, else as drawn (the instant without jitter).
      const drawn = at + drawnDelay(id, at);
      if (first.scheduledAt === null) dueCheck.unset++;
      else if (first.scheduledAt === drawn) dueCheck.matching++;
      else {
        dueCheck.differing++;
        dueCheck.example ??= `${id}@${new Date(at).toISOString()}: due +${first.scheduledAt - at} ms, drawn +${drawn - at} ms`;
      }
      const due = first.scheduledAt ?? drawn;
      dueOffsetsPerMinute[k]!.push(due - at);
      creationByDue.push(fired + at - due);
      if (first.startedAt !== null) claim.push(first.startedAt - due);
      if (first.firstAttemptAt !== null) firstAttempt.push(first.firstAttemptAt - due);
      for (const o of list) {
        instantOf.set(o.requestId, { at, due, minute: k, scheduleId: id });
        if (o.status !== 'succeeded') notSucceeded.set(o.status, (notSucceeded.get(o.status) ?? 0) + 1);
      }
    }
  });
  const duplicatesByCreatedMinute = [...byCreatedMinute.values()].reduce((a, n) => a + Math.max(0, n - 1), 0);

  // ---- delivery: first arrival of each measured occurrence's request
  const delivery: number[] = [];
  const deliveryPerMinute: number[][] = Array.from({ length: minutes }, () => []);
  const arrivalOffsetsPerMinute: number[][] = Array.from({ length: minutes }, () => []);
  const seen = new Set<string>();
  let duplicateDeliveries = 0;
  let headerMismatches = 0;
  for (const a of arrivals) {
    const o = a.requestId === undefined ? undefined : instantOf.get(a.requestId);
    if (o === undefined) continue;
    if (a.scheduleId !== o.scheduleId) headerMismatches++;
    if (seen.has(a.requestId!)) {
      duplicateDeliveries++;
      continue;
    }
    seen.add(a.requestId!);
    delivery.push(a.receivedAt - o.due);
    deliveryPerMinute[o.minute]!.push(a.receivedAt - o.due);
    arrivalOffsetsPerMinute[o.minute]!.push(a.receivedAt - o.at);
  }
  return {
    expected: ids.length * minutes,
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
    creationByDue: stats(creationByDue),
    claim: stats(claim),
    firstAttempt: stats(firstAttempt),
    delivery: stats(delivery),
    deliveryPerMinute: deliveryPerMinute.map(stats),
    dueCheck,
    dueSpreadPerMinute: jitterMs > 0 ? dueOffsetsPerMinute.map((d) => spreadOf(d, jitterMs)) : [],
    arrivalSpreadPerMinute: jitterMs > 0 ? arrivalOffsetsPerMinute.map((d) => spreadOf(d, jitterMs)) : [],
    notDelivered: instantOf.size - seen.size,
    duplicateDeliveries,
    headerMismatches,
    scheduleOutcomes: stored.schedules,
  };
}
