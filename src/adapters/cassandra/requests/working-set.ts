import type { Clock } from '../../../domain/clock.js';
import type { StoredRequest } from '../../../domain/request.js';
import { isWaiting } from '../../../domain/request-lifecycle/index.js';
import { shardOf } from '../../../domain/shards.js';
import type { ShardEpochs } from '../../../ports/shard-epochs.js';
import type { OwnerWorkingSet } from '../../../ports/work-shards.js';
import { DueSoon } from './due-soon.js';
import { RecentKeys } from '../shared/recent-keys.js';

/**
 * How soon a request must be due to join the working set: far enough for work due in the next moments, short
 * enough that memory holds only work about to be delivered.
 */
const DUE_SOON_MS = 60_000;
/** How far the clocks of two processes may differ (see `acceptedElsewhere`). */
const CLOCKS_APART_MS = 10_000;
/** Cancels remembered at most (see `cancelNoticed`). */
const MAX_KNOWN_CANCELS = 10_000;
/** Requests this process changed, remembered at most (see `changedLately`): a minute at 800 changes a second. */
const MAX_KNOWN_CHANGES = 50_000;

/**
 * What goes into the owner's working set (`DueSoon`) and what takes it out again. While a process holds a shard
 * nobody else changes the state of the shard's requests (others only ask for a cancel, in a cell of their own),
 * so a request it wrote, or one carried to it before anyone could change it, is as stored until a cancel is asked
 * for. Every way in therefore checks the shard was held throughout and that no cancel was noticed; every cancel
 * noticed takes the request out, and is remembered a while for notices that arrive after it.
 */
export class WorkingSet implements OwnerWorkingSet {
  readonly dueSoon: DueSoon;
  /** Requests being written as accepted, and whether a cancel was noticed meanwhile. */
  private readonly accepting = new Map<string, { cancelAsked: boolean }>();
  /** Requests whose cancel was noticed lately: a notice of their work arriving after it is not taken in. */
  private readonly cancelNoticed: RecentKeys;
  /**
   * Requests this process changed lately (claimed through a timer, delivered, ended): a notice of their work that
   * arrives after that (held up in Kafka, or sent late by a process that was cut off) carries a state they left.
   */
  private readonly changedLately: RecentKeys;

  constructor(
    private readonly shardCount: number,
    private readonly clock: Clock,
    /** The shards this process holds, and since when. */
    private readonly epochs: ShardEpochs,
    /** Tells the claim of a request out here, if any, that a cancel of it was asked (see `ClaimsOut`). */
    private readonly cancelReachesClaim: (id: string) => void,
  ) {
    this.dueSoon = new DueSoon(shardCount);
    this.cancelNoticed = new RecentKeys(clock, DUE_SOON_MS, MAX_KNOWN_CANCELS);
    this.changedLately = new RecentKeys(clock, DUE_SOON_MS, MAX_KNOWN_CHANGES);
  }

  /** Marks `requests` as being written as accepted (see `beingAccepted`); the result ends that. */
  writing(requests: readonly StoredRequest[]): () => void {
    for (const r of requests) this.accepting.set(r.id, { cancelAsked: false });
    return () => {
      for (const r of requests) this.accepting.delete(r.id);
    };
  }

  /** True while request `id` is being written as accepted: a reader can see its timer before it. */
  beingAccepted(id: string): boolean {
    return this.accepting.has(id);
  }

  /**
   * New requests written here, due soon, in shards this process held before writing them (`bases`, the epochs then).
   */
  acceptedHere(requests: readonly StoredRequest[], bases: readonly (number | null)[]): void {
    const soon = this.clock.now() + DUE_SOON_MS;
    requests.forEach((r, i) => {
      const basis = bases[i];
      if (basis === null || basis === undefined || r.dueAt === null || r.dueAt > soon) return;
      if (this.accepting.get(r.id)?.cancelAsked !== true) this.dueSoon.remember(r, basis);
    });
  }

  /**
   * Requests another process accepted into shards this one holds, carried by their notices, taken in when nobody
   * else can have changed them: this process has held the shard since well before the request was created, or the
   * request falls due well after this process took the shard (an earlier owner changes a request only once it is
   * due, and stopped claiming before this process took the shard). `CLOCKS_APART_MS` covers clocks that differ.
   * Nor by this process: a request it changed lately (found through its timer before the notice came) stays out.
   */
  acceptedElsewhere(requests: readonly StoredRequest[]): void {
    const soon = this.clock.now() + DUE_SOON_MS;
    for (const r of requests) {
      const held = this.epochs.held(shardOf(r.id, this.shardCount));
      if (held === null || r.dueAt === null || r.dueAt > soon || this.cancelNoticed.has(r.id) || this.changedLately.has(r.id)) continue;
      const unchanged = r.createdAt > held.since + CLOCKS_APART_MS || r.dueAt > held.since + CLOCKS_APART_MS;
      if (unchanged) this.dueSoon.remember(r, held.epoch);
    }
  }

  /**
   * A change this process wrote under epoch `basis`: what it remembered of the request is stale. A request it
   * left waiting (a retry, a hand-back) and due soon is taken in as written, unless a cancel of it was noticed.
   */
  changedHere(next: StoredRequest, basis: number): void {
    this.dueSoon.forget(next.id);
    this.changedLately.add(next.id);
    if (isWaiting(next.status) && next.dueAt !== null && next.dueAt <= this.clock.now() + DUE_SOON_MS && !this.cancelNoticed.has(next.id)) {
      this.dueSoon.remember(next, basis);
    }
  }

  /**
   * Cancels stored here or noticed from elsewhere: what this process remembers of those requests is stale, and a
   * claim of one out here writes its change on the request as now stored.
   */
  cancelsAsked(requestIds: readonly string[]): void {
    for (const id of requestIds) {
      this.dueSoon.forget(id);
      this.cancelReachesClaim(id);
      const writing = this.accepting.get(id);
      if (writing !== undefined) writing.cancelAsked = true;
      // Its work notice may still be on its way, from another process than this cancel's.
      this.cancelNoticed.add(id);
    }
  }
}
