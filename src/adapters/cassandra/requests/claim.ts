import type { Clock, TimerHandle } from '../../../domain/clock.js';
import type { StoredRequest } from '../../../domain/request.js';
import type { Claim } from '../../../ports/requests.js';

/** What storage holds of a claimed request, where it differs from the claim's `request`. */
export type StoredAs = Pick<StoredRequest, 'status' | 'dueAt'>;

/**
 * A claim of the Cassandra request store: the request as claimed, and what the claim's change needs to be written
 * without reading or looking up anything (see `ClaimChanges`).
 *
 * A claim is *held* (`stored` false) until its change stores claim and change as one write, or until it has been
 * held too long and is stored on its own; storage meanwhile still has the request as it was before the claim
 * (`storedAs`: its due timer stands). A claim made from a read after a conflict (`ClaimChanges.reread`) is stored,
 * and `storedAs` is the deliverer's view of the request where readers were shown it cancelled.
 */
export class CassandraClaim implements Claim {
  /** False while held: claimed here, not stored. */
  stored: boolean;
  /** The storing of a held claim, or the claim's change, under way: a second change waits for it. */
  busy: Promise<unknown> | null = null;
  /** Set once the claim's change was made (`spent`) or the request moved on without it (`lost`). */
  over: 'spent' | 'lost' | null = null;
  /** A cancel of the request was noticed since the claim (see `ClaimChanges.change`). */
  cancelNoticed = false;
  /** When a held claim is to be stored on its own; null when it is not waiting for that (see `ClaimsOut`). */
  storeAt: number | null = null;
  /** Its neighbours among the claims waiting to be stored, in the order they fall due (see `ClaimsOut`). */
  prev: CassandraClaim | null = null;
  next: CassandraClaim | null = null;

  constructor(
    readonly request: StoredRequest,
    /** The shard epoch it was claimed under (see `RequestChanges.apply`). */
    readonly basis: number,
    /** What storage holds where it differs from `request`; null when it holds `request` itself. */
    public storedAs: StoredAs | null,
    /** Whether the claim is held here rather than stored. */
    held: boolean,
  ) {
    this.stored = !held;
  }

  /**
   * Itself: its change may end the request, and the write that ends one gives every cell, body and headers
   * included, its time to live, so the claim keeps them until then.
   */
  sent(): Claim {
    return this;
  }

  /** Whether a claim scan passes over the claim's request: its due timer stands for work under way here. */
  get inHand(): boolean {
    return this.over === null && (!this.stored || this.busy !== null);
  }

  static of(claim: Claim): CassandraClaim {
    if (!(claim instanceof CassandraClaim)) throw new TypeError('The claim was not made by the Cassandra request store.');
    return claim;
  }
}

/**
 * The claims this store has handed out whose change is not made yet, by request ID: references to the claims the
 * deliverer holds, no copies, each gone once its change is made. A change comes with its claim; claims are found by
 * ID only for what a claim cannot tell the store by itself:
 * - a claim scan passes over the requests of claims held here (their due timers still stand), and of claims being
 *   stored or changed (what it would read is about to be outdated);
 * - a change this store makes without the claim (a lease released, a new claim once a lease ran out) fences it;
 * - a cancel noticed from elsewhere reaches it (`cancelNoticed`).
 *
 * Held claims also wait here to be stored on their own (`storeLater`), in the order they fall due: all wait equally
 * long, so that is the order they were put in, and one timer, for the first, serves them all (a timer each would
 * cost about a kilobyte per claim).
 */
export class ClaimsOut {
  private readonly byId = new Map<string, CassandraClaim>();
  private held = 0;
  private first: CassandraClaim | null = null;
  private last: CassandraClaim | null = null;
  private timer: TimerHandle | null = null;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    /** Stores a held claim whose time to be stored came (see `storeLater`). */
    private readonly storeDue: (claim: CassandraClaim) => void,
  ) {}

  /** Claims held here, not stored. */
  get heldCount(): number {
    return this.held;
  }

  /** Hands `claim` out; a claim of the same request handed out before is lost. */
  handOut(claim: CassandraClaim): void {
    const id = claim.request.id;
    const earlier = this.byId.get(id);
    if (earlier !== undefined && earlier !== claim) this.lose(earlier);
    this.byId.set(id, claim);
    if (!claim.stored) this.held++;
  }

  /** Whether request `id` has a claim out that a claim scan passes over (see `CassandraClaim.inHand`). */
  inHand(id: string): boolean {
    return this.byId.get(id)?.inHand === true;
  }

  /** Whether request `id` has a claim out, in hand or stored: its change is that claim's to make. */
  isOut(id: string): boolean {
    return this.byId.has(id);
  }

  /** Has held `claim` stored on its own `ms` from now, unless its change comes first (`stopWaiting`). */
  storeLater(claim: CassandraClaim, ms: number): void {
    this.stopWaiting(claim);
    if (claim.stored || claim.over !== null) return;
    claim.storeAt = this.clock.now() + ms;
    claim.prev = this.last;
    if (this.last === null) this.first = claim;
    else this.last.next = claim;
    this.last = claim;
    this.arm();
  }

  /** `claim` no longer waits to be stored on its own: its change or its storing has begun. */
  stopWaiting(claim: CassandraClaim): void {
    if (claim.storeAt === null) return;
    if (claim.prev === null) this.first = claim.next;
    else claim.prev.next = claim.next;
    if (claim.next === null) this.last = claim.prev;
    else claim.next.prev = claim.prev;
    claim.prev = claim.next = null;
    claim.storeAt = null;
  }

  /** A held claim is stored now. */
  stored(claim: CassandraClaim): void {
    if (claim.stored || claim.over !== null) return;
    this.stopWaiting(claim);
    claim.stored = true;
    claim.storedAs = null;
    this.held--;
  }

  /** `claim`'s change is made: it is out no more. */
  spent(claim: CassandraClaim): void {
    this.end(claim, 'spent');
  }

  /** The request moved on without `claim` (or it was dropped): any change through it fails. */
  lose(claim: CassandraClaim): void {
    this.end(claim, 'lost');
  }

  /** This store changed request `id` without its claim: a claim of it out now is lost. */
  fence(id: string): void {
    const claim = this.byId.get(id);
    if (claim !== undefined) this.lose(claim);
  }

  /** A cancel of request `id` was asked: its claim out, if any, learns of it. */
  cancelAsked(id: string): void {
    const claim = this.byId.get(id);
    if (claim !== undefined) claim.cancelNoticed = true;
  }

  /** Forgets every claim: held ones stay due in storage, for whichever process claims them next. */
  close(): void {
    for (const claim of [...this.byId.values()]) this.lose(claim);
    this.timer?.cancel();
    this.timer = null;
  }

  private end(claim: CassandraClaim, how: 'spent' | 'lost'): void {
    this.stopWaiting(claim);
    if (claim.over === null) {
      claim.over = how;
      if (!claim.stored) this.held--;
    }
    if (this.byId.get(claim.request.id) === claim) this.byId.delete(claim.request.id);
  }

  /** Arms the one timer for the first claim waiting, unless it is armed for that time or earlier already. */
  private arm(): void {
    const at = this.first?.storeAt ?? null;
    if (at === null || at >= this.timerAt) return;
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.clock.setTimer(() => this.fire(), Math.max(0, at - this.clock.now()));
  }

  private fire(): void {
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    for (let c = this.first; c !== null && c.storeAt! <= now; c = this.first) {
      this.stopWaiting(c);
      this.storeDue(c);
    }
    this.arm();
  }
}
