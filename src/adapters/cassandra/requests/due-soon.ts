import type { StoredRequest } from '../../../domain/request.js';
import { shardOf } from '../../../domain/shards.js';
import type { RequestTimer } from './timers.js';

/** Requests remembered at most, and their body bytes at most: about a minute of work at full speed. */
const MAX_REMEMBERED = 20_000;
const MAX_REMEMBERED_BODY_BYTES = 64 * 1024 * 1024;

/** A request of the working set, and the shard epoch under which it was written or carried here. */
export interface Remembered {
  readonly request: StoredRequest;
  /** The epoch a claim of it is made under (see `RequestChanges.apply`). */
  readonly basis: number;
}

interface Entry {
  readonly dueAt: number;
  readonly id: string;
}

/**
 * The owner's working set: requests this process wrote into shards it held, due soon, with the epoch they were
 * written under, and in due order, so a claim finds them due without reading the timers and takes them without
 * reading the request. The order is a binary heap; an entry taken or forgotten by ID stays in it until it comes
 * up and is then skipped, so both ways out are cheap. At most `MAX_REMEMBERED` requests and
 * `MAX_REMEMBERED_BODY_BYTES` of bodies, the oldest remembered forgotten first.
 */
export class DueSoon {
  private readonly byId = new Map<string, Remembered>();
  private bodyBytes = 0;
  private readonly heap: Entry[] = [];

  constructor(private readonly shardCount: number) {}

  remember(r: StoredRequest, basis: number): void {
    if (r.dueAt === null) return;
    this.forget(r.id);
    this.byId.set(r.id, { request: r, basis });
    this.bodyBytes += r.body?.byteLength ?? 0;
    while (this.byId.size > MAX_REMEMBERED || this.bodyBytes > MAX_REMEMBERED_BODY_BYTES) this.forget(this.byId.keys().next().value!);
    this.push({ dueAt: r.dueAt, id: r.id });
  }

  /** The remembered request `id`, taken out; undefined when it is not remembered. */
  take(id: string): Remembered | undefined {
    const remembered = this.byId.get(id);
    if (remembered !== undefined) this.forget(id);
    return remembered;
  }

  /** Forgets `id`: this process changed it, or a cancel of it was noticed. */
  forget(id: string): void {
    const remembered = this.byId.get(id);
    if (remembered === undefined) return;
    this.byId.delete(id);
    this.bodyBytes -= remembered.request.body?.byteLength ?? 0;
  }

  /**
   * Timers of remembered requests due by `now` in `shards`, earliest first, at most `limit`. They stay remembered
   * until claimed (`take`); those of other shards are passed by here and left to the timer scans.
   */
  due(now: number, shards: ReadonlySet<number>, limit: number): RequestTimer[] {
    const out: RequestTimer[] = [];
    while (out.length < limit && this.heap.length > 0 && this.heap[0]!.dueAt <= now) {
      const { dueAt, id } = this.pop();
      const remembered = this.byId.get(id);
      if (remembered === undefined || remembered.request.dueAt !== dueAt) continue;
      const shard = shardOf(id, this.shardCount);
      if (shards.has(shard)) out.push({ shard, dueAt, id, lease: false });
    }
    // The heap only grows past what is remembered by entries taken out of order; rebuild it then.
    if (this.heap.length > 2 * this.byId.size + 1024) this.rebuild();
    return out;
  }

  /** The earliest due time remembered; null when nothing is. */
  earliest(): number | null {
    while (this.heap.length > 0) {
      const { dueAt, id } = this.heap[0]!;
      if (this.byId.get(id)?.request.dueAt === dueAt) return dueAt;
      this.pop();
    }
    return null;
  }

  private rebuild(): void {
    const live = this.heap.filter((e) => this.byId.get(e.id)?.request.dueAt === e.dueAt);
    this.heap.length = 0;
    for (const e of live) this.push(e);
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    for (let i = h.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.dueAt <= h[i]!.dueAt) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  private pop(): Entry {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let least = i;
        if (l < h.length && h[l]!.dueAt < h[least]!.dueAt) least = l;
        if (r < h.length && h[r]!.dueAt < h[least]!.dueAt) least = r;
        if (least === i) break;
        [h[least], h[i]] = [h[i]!, h[least]!];
        i = least;
      }
    }
    return top;
  }
}
