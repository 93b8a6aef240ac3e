export interface CoalescerLimits {
  /** Writes under way at once; what arrives meanwhile waits and shares the next write. */
  readonly writesAtOnce: number;
  /** Items in one write. */
  readonly itemsPerWrite: number;
  /** Bytes in one write; an item larger than this is written alone. */
  readonly bytesPerWrite: number;
  /** Items waiting for a write; beyond either bound a submission is refused at once. */
  readonly maxWaiting: number;
  readonly maxWaitingBytes: number;
}

interface Waiting<T> {
  readonly item: T;
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Items submitted one at a time, written in groups. Cassandra spends more on each message than on each row it
 * holds, so items that arrive while `writesAtOnce` writes are under way share the next one. Nothing waits for a
 * timer: under light load every item is written the moment it arrives, alone.
 *
 * Every item of a group learns the group's outcome. Items are independent, so a group that fails part way may
 * leave some of them written; a caller told of a failure is in the same position as after a timeout.
 */
export class WriteCoalescer<T> {
  private readonly waiting: Waiting<T>[] = [];
  private waitingBytes = 0;
  private writing = 0;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly bytesOf: (item: T) => number,
    private readonly limits: CoalescerLimits,
    private readonly overloaded: () => Error,
  ) {}

  submit(item: T): Promise<void> {
    const bytes = this.bytesOf(item);
    const full = this.waiting.length >= this.limits.maxWaiting || this.waitingBytes + bytes > this.limits.maxWaitingBytes;
    // An empty queue always takes one item, however large, or a big item could never be written.
    if (full && this.waiting.length > 0) return Promise.reject(this.overloaded());
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, bytes, resolve, reject });
      this.waitingBytes += bytes;
      this.pump();
    });
  }

  private pump(): void {
    while (this.writing < this.limits.writesAtOnce && this.waiting.length > 0) {
      const group = this.nextGroup();
      this.writing++;
      void this.run(group);
    }
  }

  private async run(group: readonly Waiting<T>[]): Promise<void> {
    try {
      await this.write(group.map((w) => w.item));
      for (const w of group) w.resolve();
    } catch (err) {
      for (const w of group) w.reject(err);
    } finally {
      this.writing--;
      this.pump();
    }
  }

  private nextGroup(): Waiting<T>[] {
    let count = 0;
    let bytes = 0;
    for (const w of this.waiting) {
      if (count === this.limits.itemsPerWrite) break;
      if (count > 0 && bytes + w.bytes > this.limits.bytesPerWrite) break;
      count++;
      bytes += w.bytes;
    }
    this.waitingBytes -= bytes;
    return this.waiting.splice(0, count);
  }
}
