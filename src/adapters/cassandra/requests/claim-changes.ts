import type { Clock } from '../../../domain/clock.js';
import type { AttemptRecord, StoredRequest } from '../../../domain/request.js';
import { stillClaimed, type Transition } from '../../../domain/request-lifecycle/index.js';
import { shardOf } from '../../../domain/shards.js';
import { VersionConflict, type Claim } from '../../../ports/requests.js';
import type { InFlight } from '../shared/concurrency.js';
import type { RequestChanges } from './changes.js';
import { CassandraClaim, type ClaimsOut } from './claim.js';
import type { RequestRows } from './rows.js';

/** Claims held at most; beyond this a claim is stored at once, as when holding is off. */
const MAX_HELD = 20_000;

/** Storing a held claim changes nothing the claim did not: storage catches up with it. */
const NO_CHANGE: Transition = { set: {} };

/**
 * The changes made through claims, and the storing of held ones. A claim held here is stored with its change as one
 * write: one write per delivery instead of two. The request's due timer stays in place until then, so a crash
 * leaves it due at once for the shard's next owner, and this process passes over it while the claim is out.
 *
 * A claim still held after `storeAfterMs` is stored as it would have been at once, so a long attempt shows as
 * `delivering` and its lease fences a worker that outlives it. Until then readers elsewhere see the request as it
 * was before the claim.
 */
export class ClaimChanges {
  constructor(
    private readonly rows: RequestRows,
    private readonly changes: RequestChanges,
    private readonly out: ClaimsOut,
    /** The timer stamp of deletions decided now (`TimerEngine.stamp`). */
    private readonly stamp: () => number,
    private readonly inFlight: InFlight,
    private readonly clock: Clock,
    /** How long a claim may stay held; 0 stores every claim at once. */
    private readonly storeAfterMs: number,
    private readonly shardCount: number,
  ) {}

  /** Whether a new claim may be held rather than stored at once. */
  get holding(): boolean {
    return this.storeAfterMs > 0 && this.out.heldCount < MAX_HELD;
  }

  /** Hands out a held claim, to be stored with its change, or on its own once held `storeAfterMs`. */
  hold(claim: CassandraClaim): void {
    this.out.handOut(claim);
    this.out.storeLater(claim, this.storeAfterMs);
  }

  /**
   * The one change through `claim`, and the attempt it records if any, as one write; the request as it now is.
   * `VersionConflict` when the claim was spent or lost, or this process no longer holds the request's shard since
   * the claim's epoch (nothing is written then).
   *
   * The change is made on the claimed request, as the claim carries it: while this process holds the shard nobody
   * else changes the request's state. A cancel asked for meanwhile is merged by readers, and found by the next
   * claim; but when one was noticed since a stored claim was made, the request is read first, so that the write
   * carries the cancel too (and gives its cell a time to live when the request ends), as it would for any change
   * made after a read. A held claim is written with the change: both apply to the request as stored.
   */
  async change(claim: Claim, change: Transition, during: string, attempt: AttemptRecord | null = null, callback: StoredRequest | null = null): Promise<StoredRequest> {
    const c = CassandraClaim.of(claim);
    // One change per claim: a second one waits for the first (or for the storing of a held claim), then finds the
    // claim spent. With no condition in storage, this is what keeps two changes of one version apart.
    while (c.busy !== null) await c.busy.catch(() => undefined);
    if (c.over !== null) throw conflict(c);
    const work = this.changeNow(c, change, during, attempt, callback);
    c.busy = work;
    try {
      return await work;
    } finally {
      c.busy = null;
    }
  }

  /**
   * After a conflict: the request read again, as a claim on it if all that changed it since `claim` is a cancel
   * (`stillClaimed`, judged on the request as readers see it). The new claim carries the readers' view, which its
   * change writes, and what storage holds where that differs (a held claim's request that reads `cancelled`).
   */
  async reread(claim: Claim): Promise<Claim | null> {
    const c = CassandraClaim.of(claim);
    const basis = this.changes.basis(shardOf(c.request.id, this.shardCount));
    if (basis === null) return null;
    const views = await this.rows.requestViews(c.request.id, 'reading a claimed request again');
    if (views === null || views.asRead.projectId !== c.request.projectId || !stillClaimed(views.asRead, c.request)) return null;
    const { asRead, own } = views;
    const again = new CassandraClaim(asRead, basis, asRead.status === own.status ? null : { status: own.status, dueAt: own.dueAt }, false);
    this.out.handOut(again);
    return again;
  }

  private async changeNow(c: CassandraClaim, change: Transition, during: string, attempt: AttemptRecord | null, callback: StoredRequest | null): Promise<StoredRequest> {
    const asOf = this.stamp();
    const held = !c.stored;
    this.out.stopWaiting(c);
    let current = c.request;
    let storedAs = c.storedAs;
    if (c.stored && c.cancelNoticed) {
      const read = await this.rows.request(c.request.id, during);
      if (read === null || read.version !== c.request.version) {
        this.out.lose(c);
        throw conflict(c);
      }
      current = read;
      storedAs = null;
    }
    let next: StoredRequest | null;
    try {
      next = await this.changes.apply(current, change, asOf, c.basis, during, { attempt, storedAs, callback });
    } catch (err) {
      // Not written, as far as anyone can tell (storage unreachable): the claim stands as it was, for the deliverer
      // to try again; a held one is stored later, as before.
      if (held) this.out.storeLater(c, this.storeAfterMs);
      throw err;
    }
    if (next === null) {
      this.out.lose(c);
      throw conflict(c);
    }
    this.out.spent(c);
    return next;
  }

  /** Stores a claim held too long (see `ClaimsOut.storeLater`), exactly as a claim is stored at once when holding is off. */
  async storeHeld(c: CassandraClaim): Promise<void> {
    if (c.stored || c.over !== null || c.busy !== null) return;
    const options = { version: c.request.version, storedAs: c.storedAs };
    const work = this.inFlight.run(() => this.changes.apply(c.request, NO_CHANGE, this.stamp(), c.basis, 'storing a claim', options));
    c.busy = work;
    try {
      if ((await work) === null) this.out.lose(c);
      else this.out.stored(c);
    } catch {
      // Not stored (storage unreachable): the claim stays held, stored with its change or by a later try. Once its
      // lease is over it is dropped, and the request, as stored, is due for a new claim.
      if (this.clock.now() + this.storeAfterMs < (c.request.dueAt ?? 0)) this.out.storeLater(c, this.storeAfterMs);
      else this.out.lose(c);
    } finally {
      c.busy = null;
    }
  }
}

function conflict(c: CassandraClaim): VersionConflict {
  return new VersionConflict(`Request ${c.request.id} is no longer as claimed at version ${c.request.version}.`);
}
