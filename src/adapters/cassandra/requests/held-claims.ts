import type { Clock, TimerHandle } from '../../../domain/clock.js';
import type { StoredRequest } from '../../../domain/request.js';
import type { Transition } from '../../../domain/request-lifecycle/index.js';

/** Claims held at most; beyond this a claim is stored at once, as when holding is off. */
const MAX_HELD = 20_000;
/** Lost claims and taken claims remembered at most (see `lost` and `taken`). */
const MAX_REMEMBERED = 20_000;

/** A claim this process has made but not stored: the request as stored, and the claimed request handed out. */
export interface HeldClaim {
  readonly stored: StoredRequest;
  readonly claimed: StoredRequest;
  readonly change: Transition;
  /** The shard epoch under which the claim was made (see `RequestChanges.apply`). */
  readonly basis: number;
}

interface Entry extends HeldClaim {
  timer: TimerHandle | undefined;
  storing: Promise<void> | undefined;
}

/**
 * Claims kept in this process until the request's next change, which then stores claim and change as one
 * write: one write per delivery instead of two. The request's due timer stays in place, so a
 * crash leaves it due at once for the shard's next owner; this process skips it while it holds the claim.
 *
 * A claim still held after `storeAfterMs` is stored as it would have been at once (`store`), so a long attempt
 * shows as `delivering` and its lease fences a worker that outlives it. Until then readers elsewhere see the
 * request as it was before the claim.
 */
export class HeldClaims {
  private readonly byId = new Map<string, Entry>();
  /**
   * Claims whose storing found the request moved on, by ID, with the version they were handed out at. Another
   * change may have stored that very version, so a change expecting it from this claim must fail, not apply.
   */
  private readonly lost = new Map<string, number>();
  /**
   * Claims taken for a change, by ID, with the version they were held at. A claim's read that began before that
   * change landed may still answer the old version: without this, the request would be claimed and sent again.
   */
  private readonly taken = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly storeAfterMs: number,
    /**
     * Stores the claim as `claimDue` does when it does not hold it; false when the request moved on meanwhile.
     * It rejects only when storage could not be reached.
     */
    private readonly store: (claim: HeldClaim) => Promise<boolean>,
    private readonly clock: Clock,
  ) {}

  /** Whether a new claim may be held rather than stored at once. */
  get accepting(): boolean {
    return this.storeAfterMs > 0 && this.byId.size < MAX_HELD;
  }

  holds(id: string): boolean {
    return this.byId.has(id);
  }

  /** Whether `r` is as it was before a change of this process that took its held claim. */
  outdated(r: StoredRequest): boolean {
    const version = this.taken.get(r.id);
    return version !== undefined && r.version <= version;
  }

  /** The change that took the claim of `id` failed without an answer: a later read is not outdated by it. */
  untake(id: string): void {
    this.taken.delete(id);
  }

  /**
   * Holds again a claim whose change failed without an answer (storage unreachable, say): the claimer tries the
   * change again, and without the claim that change would find the request at the wrong version.
   */
  restore(claim: HeldClaim): void {
    this.untake(claim.claimed.id);
    if (!this.closed && !this.byId.has(claim.claimed.id)) this.hold(claim);
  }

  hold(claim: HeldClaim): void {
    const entry: Entry = { ...claim, timer: undefined, storing: undefined };
    this.storeLater(entry);
    this.byId.set(claim.claimed.id, entry);
  }

  /**
   * The claim of `id` handed out at `version`, taken for a change that stores it with its own; `lost` when the
   * request moved on before the claim could be stored; undefined when this process holds no such claim (any
   * more: once stored, the request itself is at `version`).
   */
  async take(id: string, version: number): Promise<HeldClaim | 'lost' | undefined> {
    const entry = this.byId.get(id);
    if (entry === undefined || entry.claimed.version !== version) return this.lost.get(id) === version ? 'lost' : undefined;
    if (entry.storing !== undefined) {
      await entry.storing;
      return this.take(id, version);
    }
    entry.timer?.cancel();
    this.byId.delete(id);
    remember(this.taken, id, entry.stored.version);
    return { stored: entry.stored, claimed: entry.claimed, change: entry.change, basis: entry.basis };
  }

  /** Forgets every held claim: their requests stay due in storage, for whichever process claims them next. */
  close(): void {
    this.closed = true;
    for (const entry of this.byId.values()) entry.timer?.cancel();
    this.byId.clear();
  }

  private storeNow(entry: Entry): void {
    const id = entry.claimed.id;
    entry.storing = this.store(entry).then(
      (stored) => {
        this.byId.delete(id);
        // Either way the request has moved past the version it was claimed at; a read that says otherwise is old.
        remember(this.taken, id, entry.stored.version);
        if (!stored) remember(this.lost, id, entry.claimed.version);
      },
      () => {
        // Not stored (storage unreachable): the claim stays held, stored with the request's next change or by a
        // later try. Once its lease is over it is dropped, and the request, as stored, is due for a new claim.
        entry.storing = undefined;
        if (this.clock.now() + this.storeAfterMs < (entry.claimed.dueAt ?? 0)) this.storeLater(entry);
        else if (this.byId.get(id) === entry) this.byId.delete(id);
      },
    );
  }

  private storeLater(entry: Entry): void {
    entry.timer = this.clock.setTimer(() => this.storeNow(entry), this.storeAfterMs);
  }
}

function remember(versions: Map<string, number>, id: string, version: number): void {
  versions.delete(id);
  versions.set(id, version);
  if (versions.size > MAX_REMEMBERED) versions.delete(versions.keys().next().value!);
}
