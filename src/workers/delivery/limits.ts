/**
 * Counts attempts in flight per key (destination host, project queue) and overall, so one slow or busy
 * destination or queue can take only its share of the delivery slots. A host's share counts exchanges with it
 * only: an attempt leaves it once the destination has answered (`releaseHost`), while its outcome is still being
 * recorded; the overall and queue shares last until the outcome is recorded (`finish`).
 */
export class ConcurrencyLimits {
  private total = 0;
  private readonly perHost = new Map<string, number>();
  private readonly perQueue = new Map<string, number>();

  constructor(
    readonly maxTotal: number,
    readonly maxPerHost: number,
    readonly maxPerQueue: number,
  ) {}

  get inFlight(): number {
    return this.total;
  }

  hostFull(host: string): boolean {
    return (this.perHost.get(host) ?? 0) >= this.maxPerHost;
  }

  queueFull(queue: string): boolean {
    return (this.perQueue.get(queue) ?? 0) >= this.maxPerQueue;
  }

  start(host: string, queue: string): void {
    this.total++;
    this.perHost.set(host, (this.perHost.get(host) ?? 0) + 1);
    this.perQueue.set(queue, (this.perQueue.get(queue) ?? 0) + 1);
  }

  releaseHost(host: string): void {
    decrement(this.perHost, host);
  }

  /** Ends an attempt; `hostReleased` says whether `releaseHost` was called for it already. */
  finish(host: string, queue: string, hostReleased = false): void {
    this.total--;
    if (!hostReleased) decrement(this.perHost, host);
    decrement(this.perQueue, queue);
  }
}

function decrement(map: Map<string, number>, key: string): void {
  const n = (map.get(key) ?? 1) - 1;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}
