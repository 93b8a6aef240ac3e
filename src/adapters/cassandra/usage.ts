import type { Clock } from '../../domain/clock.js';
import { StorageUnavailable } from '../../ports/errors.js';
import type { UsageStore } from '../../ports/usage.js';
import type { types } from 'cassandra-driver';
import { isUncertainConditionalWrite } from './errors.js';
import { applied, CONSISTENCY, millis, type CassandraSession } from './session.js';
import { PerKeyQueue } from './shared/per-key-queue.js';

/** Conditional rounds lost to other processes before a change gives up with a retryable error. */
const MAX_ROUNDS = 20;

/**
 * Usage as one row per (project, period), changed by compare-and-set under Paxos: counters cannot be conditional,
 * and the limit has to be checked against the value the write replaces.
 */
export class CassandraUsageStore implements UsageStore {
  private readonly q: ReturnType<typeof statements>;
  /**
   * Changes of one row from this process, one after another: conditional writes to one partition from the same
   * process would only make each other lose Paxos rounds and retry; in turn, each round is won by the first try
   * unless another process wrote in between.
   */
  private readonly turns = new PerKeyQueue();

  constructor(
    private readonly session: CassandraSession,
    private readonly clock: Clock,
  ) {
    this.q = statements(session.table('usage'));
  }

  async reserve(projectId: string, period: string, count: number, limit: number): Promise<boolean> {
    assertCount(count);
    if (count > limit) return false;
    if (count === 0) return true;
    return this.change(projectId, period, (used) => (used + count <= limit ? used + count : null));
  }

  async release(projectId: string, period: string, count: number): Promise<void> {
    assertCount(count);
    if (count === 0) return;
    await this.change(projectId, period, (used) => (used === 0 ? null : Math.max(0, used - count)), { createMissing: false });
  }

  async used(projectId: string, period: string): Promise<number> {
    return (await this.read(projectId, period)) ?? 0;
  }

  /**
   * Replaces the period's usage with `next(used)` unless that is null; true when written. Each round compares
   * with the value last seen, and a lost round reports the value that beat it, so only the first round reads.
   */
  private change(projectId: string, period: string, next: (used: number) => number | null, o = { createMissing: true }): Promise<boolean> {
    return this.turns.run(`${projectId}\n${period}`, async () => {
      let used = await this.read(projectId, period);
      for (let round = 0; round < MAX_ROUNDS; round++) {
        if (used === null && !o.createMissing) return false;
        const target = next(used ?? 0);
        if (target === null) return false;
        let rs: types.ResultSet;
        try {
          rs =
            used === null
              ? await this.session.execute(this.q.insert, [projectId, period, target], 'reserving usage')
              : await this.session.execute(this.q.update, [target, projectId, period, used], 'changing usage');
        } catch (err) {
          // The coordinator was lost or stopped answering mid-write: a serial read settles whether it landed rather
          // than failing the call. Usage at the target means it did (or another process moved it from the same value
          // by the same count at that moment, then one change goes uncounted: a rare undercount, never a refusal).
          if (!isUncertainConditionalWrite(err)) throw err;
          used = await this.read(projectId, period, CONSISTENCY.serial);
          if (used === target) return true;
          continue;
        }
        if (applied(rs)) return true;
        used = millis(rs.first()?.get('used'));
        await pause(this.clock, round);
      }
      throw new StorageUnavailable(`Usage of project ${projectId} for ${period} is changing too fast to update; retry.`);
    });
  }

  private async read(projectId: string, period: string, consistency: number = CONSISTENCY.read): Promise<number | null> {
    const rs = await this.session.execute(this.q.select, [projectId, period], 'reading usage', { idempotent: true, consistency });
    return millis(rs.first()?.get('used'));
  }
}

function statements(table: string) {
  return {
    select: `SELECT used FROM ${table} WHERE project_id = ? AND period = ?`,
    insert: `INSERT INTO ${table} (project_id, period, used) VALUES (?, ?, ?) IF NOT EXISTS`,
    update: `UPDATE ${table} SET used = ? WHERE project_id = ? AND period = ? IF used = ?`,
  };
}

/** A short random wait after a lost round, so processes that collided do not collide again at once. */
function pause(clock: Clock, round: number): Promise<void> {
  return clock.sleep(Math.random() * Math.min(100, 2 ** round));
}

function assertCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`Usage count must be a non-negative integer, got ${count}.`);
}
