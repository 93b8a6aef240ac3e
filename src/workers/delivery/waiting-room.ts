import type { Claim } from '../../ports/requests.js';
import type { ConcurrencyLimits } from './limits.js';

/** A claimed request waiting for a free slot of its host and queue. */
export interface Waiting {
  readonly claim: Claim;
  readonly host: string;
  readonly queue: string;
  readonly since: number;
}

/**
 * Claimed requests waiting for a free slot, kept per destination host in claim order. Slots free up after every
 * attempt, while hundreds of requests may wait for one busy host: finding what may start looks at the first
 * request of each host that has a free slot, not at every waiting request.
 */
export class WaitingRoom {
  private readonly byHost = new Map<string, Waiting[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(w: Waiting): void {
    const line = this.byHost.get(w.host);
    if (line === undefined) this.byHost.set(w.host, [w]);
    else line.push(w);
    this.count++;
  }

  /**
   * The next request that may start under `limits`, taken out of the room: of each host with a free slot, the
   * first request whose queue has one too; of those, the one claimed first. Undefined when nothing may start.
   */
  next(limits: ConcurrencyLimits): Waiting | undefined {
    if (limits.inFlight >= limits.maxTotal) return undefined;
    let best: { line: Waiting[]; index: number } | undefined;
    for (const [host, line] of this.byHost) {
      if (limits.hostFull(host)) continue;
      const index = line.findIndex((w) => !limits.queueFull(w.queue));
      if (index >= 0 && (best === undefined || line[index]!.since < best.line[best.index]!.since)) best = { line, index };
    }
    if (best === undefined) return undefined;
    return this.takeAt(best.line, best.index);
  }

  /** Takes out every request that has been waiting since `cutoff` or earlier: the front of each host's line. */
  takeWaitingSince(cutoff: number): Waiting[] {
    const taken: Waiting[] = [];
    for (const [host, line] of this.byHost) {
      const fresh = line.findIndex((w) => w.since > cutoff);
      const stale = line.splice(0, fresh < 0 ? line.length : fresh);
      if (line.length === 0) this.byHost.delete(host);
      this.count -= stale.length;
      taken.push(...stale);
    }
    return taken;
  }

  takeAll(): Waiting[] {
    const all = [...this.byHost.values()].flat();
    this.byHost.clear();
    this.count = 0;
    return all;
  }

  private takeAt(line: Waiting[], index: number): Waiting {
    const [w] = line.splice(index, 1);
    if (line.length === 0) this.byHost.delete(w!.host);
    this.count--;
    return w!;
  }
}
