/**
 * Counts exchanges in flight per key (destination host, project queue) and overall, so one slow or busy
 * destination or queue can take only its share of the delivery slots, and the outcomes whose write is still under
 * way. A slot counts the exchange only: it is free again once the destination has answered (`exchanged`), while the
 * outcome is still being recorded; the request stays claimed until then (`recorded`).
 *
 * What may be claimed is bounded apart from the slots: as many requests as there are slots may wait for one (so
 * a claim's round trip through the store does not leave slots idle while it lasts), and outcomes awaiting their
 * write have a bound of their own (`maxRecording`): past it, no more work is claimed until writes land, so a slow
 * store cannot make the engine hold ever more claimed requests.
 */
export class ConcurrencyLimits {
  private total = 0;
  private recordingCount = 0;
  private readonly perHost = new Map<string, number>();
  private readonly perQueue = new Map<string, number>();

  constructor(
    readonly maxTotal: number,
    readonly maxPerHost: number,
    readonly maxPerQueue: number,
    /** Twice the slots by default: writes land in groups, so at full speed about one slot's worth is always on its way. */
    readonly maxRecording: number = 2 * maxTotal,
    /** A queue's own bound where it has one (a configured concurrency), instead of `maxPerQueue`. */
    private readonly queueBound?: (queue: string) => number | null,
  ) {}

  /** Exchanges open now. */
  get inFlight(): number {
    return this.total;
  }

  /** Attempts whose exchange ended and whose outcome (or hand-back) is not written yet. */
  get recording(): number {
    return this.recordingCount;
  }

  hostFull(host: string): boolean {
    return (this.perHost.get(host) ?? 0) >= this.maxPerHost;
  }

  queueFull(queue: string): boolean {
    return (this.perQueue.get(queue) ?? 0) >= (this.queueBound?.(queue) ?? this.maxPerQueue);
  }

  /**
   * How many more requests may be claimed while `waiting` claimed ones wait for a slot: as many as there are
   * slots may wait, whatever is in flight, and no more than the outcomes that may still join those awaiting a
   * write.
   */
  claimable(waiting: number): number {
    return Math.max(0, Math.min(this.maxTotal - waiting, this.maxRecording - this.recordingCount));
  }

  start(host: string, queue: string): void {
    this.total++;
    this.perHost.set(host, (this.perHost.get(host) ?? 0) + 1);
    this.perQueue.set(queue, (this.perQueue.get(queue) ?? 0) + 1);
  }

  /** The exchange ended (or never started): its slots are free, and its outcome is now being written. */
  exchanged(host: string, queue: string): void {
    this.total--;
    decrement(this.perHost, host);
    decrement(this.perQueue, queue);
    this.recordingCount++;
  }

  /** The outcome of an exchange that `exchanged` counted is written (or given up on). */
  recorded(): void {
    this.recordingCount--;
  }
}

function decrement(map: Map<string, number>, key: string): void {
  const n = (map.get(key) ?? 1) - 1;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}
