import type { Clock, TimerHandle } from '../../domain/clock.js';
import type { DeliveryTransport } from '../../ports/delivery-transport.js';
import type { RequestStore, ShardScope } from '../../ports/requests.js';

/**
 * How long before known due work the connections to its destinations are opened: long enough for a few hundred
 * TLS handshakes on a busy machine, short enough that they are still open when the work starts.
 */
export const WARM_LEAD_MS = 1_000;
/** Work due sooner than this is left to connect as it starts: connecting ahead would only race the attempts. */
const MIN_LEAD_MS = 100;
/** Work due this long after the known due time counts as the same burst. */
const BURST_MS = 1_000;

export interface WarmUpOptions {
  readonly requests: RequestStore;
  readonly transport: DeliveryTransport;
  readonly clock: Clock;
  readonly maxInFlight: number;
  readonly maxPerHost: number;
  /** How far ahead the engine's looks see due work coming (its idle poll). */
  readonly idlePollMs: number;
  readonly shards?: () => ShardScope;
  readonly onError: (err: unknown) => void;
}

/**
 * Opens connections to the destinations of work about to fall due, `WARM_LEAD_MS` before it does: a burst of
 * requests due at one instant (schedules sharing a minute) would otherwise start with a TLS handshake per
 * connection, hundreds at once, competing for the CPU with the attempts themselves. The engine tells it each due
 * time it learns; it reads the destinations of the work due then (at most as many requests as there are slots)
 * and asks the transport for up to the per-host limit of connections to each. Nothing happens when the store or
 * the transport cannot do their part.
 */
export class ConnectionWarmUp {
  private timer: TimerHandle | undefined;
  /** The due time the armed timer is for; NaN when none is armed. */
  private armedFor = Number.NaN;
  /** The due time last warmed for, so the looks that keep seeing it until it is claimed do not warm again. */
  private warmedFor = Number.NaN;

  constructor(private readonly o: WarmUpOptions) {}

  /** Whether the store and the transport can open connections ahead at all. */
  static possible(requests: RequestStore, transport: DeliveryTransport): boolean {
    return requests.dueUrls !== undefined && transport.prepare !== undefined;
  }

  /** The engine learned that work is due at `dueAt` (null: none known). */
  expect(dueAt: number | null): void {
    if (dueAt === null || dueAt === this.warmedFor || dueAt >= this.armedFor) return;
    const lead = dueAt - this.o.clock.now();
    // Too close to help, or so far ahead that a later look will see it again in time.
    if (lead < MIN_LEAD_MS || lead > WARM_LEAD_MS + this.o.idlePollMs) return;
    this.timer?.cancel();
    this.armedFor = dueAt;
    this.timer = this.o.clock.setTimer(() => {
      this.armedFor = Number.NaN;
      this.warmedFor = dueAt;
      void this.warm(dueAt);
    }, Math.max(0, lead - WARM_LEAD_MS));
  }

  stop(): void {
    this.timer?.cancel();
    this.armedFor = Number.NaN;
  }

  private async warm(dueAt: number): Promise<void> {
    let urls: string[];
    try {
      urls = await this.o.requests.dueUrls!(dueAt + BURST_MS, this.o.maxInFlight, this.o.shards?.());
    } catch (err) {
      this.o.onError(err);
      return;
    }
    const perOrigin = new Map<string, { url: string; count: number }>();
    for (const url of urls) {
      const origin = originOf(url);
      const seen = perOrigin.get(origin);
      if (seen === undefined) perOrigin.set(origin, { url, count: 1 });
      else seen.count += 1;
    }
    for (const { url, count } of perOrigin.values()) this.o.transport.prepare!(url, Math.min(count, this.o.maxPerHost));
  }
}

/** Scheme and authority, lower-cased: what a connection is opened to. */
function originOf(url: string): string {
  const start = url.indexOf('//') + 2;
  const end = url.indexOf('/', start);
  return url.slice(0, end === -1 ? undefined : end).toLowerCase();
}
