import type { Clock } from '../../domain/clock.js';
import type { RequestStore } from '../../ports/requests.js';
import { DueWakeups, type Wakeable } from './due-wakeups.js';
import type { WorkPlacement } from './work-placement.js';

/** One process over one SQLite file: everything in storage is this process's to do, from the start. */
export function embeddedPlacement(requests: RequestStore, clock: Clock): WorkPlacement {
  let engine: Wakeable | null = null;
  const joined: DueWakeups[] = [];
  return {
    shards: undefined,
    async startDelivery(e) {
      // Whatever the previous run held when it stopped is nobody's now.
      await requests.releaseLeases(clock.now());
      engine = e;
    },
    join(worker, pollMs) {
      const wakeups = new DueWakeups(worker, clock, pollMs);
      joined.push(wakeups);
      return wakeups;
    },
    // A look at a local file is cheap: every accepted request wakes the engine, due or not.
    accepted: () => engine?.wake(),
    async stop() {
      for (const w of joined) w.stop();
    },
  };
}
