import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 re-arms a timer on every broker connection each time its request queue is checked, also when
 * nothing waits and nothing is throttled; the delay then comes out negative, so the check runs again a
 * millisecond later, for as long as the connection is open. Every Ferry process holds several connections, and
 * the loop was a large part of what an idle process costs: a consumer, a producer and an admin client on an idle
 * topic took 29–31 ms of CPU a second with it and 10–14 ms without. The check is skipped when it has nothing to do:
 * a request queued later schedules its own check (kafkajs does so whenever it queues one), and a throttle still
 * arms one for when it ends.
 */
interface RequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: unknown;
  scheduleCheckPendingRequests(): void;
}

let applied = false;

export function skipIdleRequestQueueChecks(): void {
  if (applied) return;
  applied = true;
  const queue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as { prototype: RequestQueue };
  const schedule = queue.prototype.scheduleCheckPendingRequests;
  if (typeof schedule !== 'function') return;
  queue.prototype.scheduleCheckPendingRequests = function (this: RequestQueue) {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now() && !this.throttleCheckTimeoutId) return;
    schedule.call(this);
  };
}
