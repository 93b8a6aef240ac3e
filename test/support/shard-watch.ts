import type { FerryProcess } from './ferry-process.js';

/** What a process's log says of the shards it owns, followed line by line. */
export interface ShardWatch {
  /** The shards of its last assignment, less those it released or saw taken over since. */
  owned(): number[];
  /**
   * The shards it may start attempts in: `owned`, or none while it says its group coordinator has not answered for
   * nearly a session (it then starts no new work until the coordinator answers or a new assignment comes).
   */
  delivering(): number[];
  /** When each assignment was logged, by the test's clock. */
  takenAt(): number[];
  /** How often it logged giving shards up: a release (rebalance, stop) or a takeover it noticed by its fence. */
  drops(): number;
}

/** Follows a process's log for the shards it owns after each assignment. */
export function watchShards(p: FerryProcess): ShardWatch {
  let owned: number[] = [];
  const times: number[] = [];
  let drops = 0;
  let lapsed = false;
  let partial = '';
  const follow = (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (line.includes('"no answer from the group coordinator')) lapsed = true;
      if (line.includes('"the group coordinator answers again"')) lapsed = false;
      if (line.includes('"shards released"')) {
        owned = [];
        drops += 1;
      }
      if (line.includes('"shard taken over by another process"')) {
        const { shard } = JSON.parse(line) as { shard: number };
        owned = owned.filter((s) => s !== shard);
        drops += 1;
      }
      if (!line.includes('"shards owned"')) continue;
      owned = (JSON.parse(line) as { owned: number[] }).owned;
      lapsed = false;
      times.push(Date.now());
    }
  };
  p.followOutput(follow);
  return { owned: () => owned, delivering: () => (lapsed ? [] : owned), takenAt: () => times, drops: () => drops };
}
