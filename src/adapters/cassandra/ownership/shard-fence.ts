import type { Clock } from '../../../domain/clock.js';
import type { ShardFence } from '../../../ports/work-shards.js';
import { CONSISTENCY, applied, millis, type CassandraSession } from '../session.js';

/**
 * Shard epochs in `shard_owners`, raised with conditional writes: each new owner gets a higher epoch than every
 * owner before it, and a Paxos read (LOCAL_SERIAL) tells a holder whether it was superseded.
 */
export class CassandraShardFence implements ShardFence {
  constructor(
    private readonly session: CassandraSession,
    private readonly clock: Clock,
  ) {}

  async acquire(shard: number, owner: string): Promise<number> {
    const t = this.session.table('shard_owners');
    for (let tries = 0; tries < 20; tries++) {
      const current = await this.epoch(shard);
      const next = (current ?? 0) + 1;
      const rs =
        current === null
          ? await this.session.execute(
              `INSERT INTO ${t} (shard, epoch, owner, since) VALUES (?, ?, ?, ?) IF NOT EXISTS`,
              [shard, next, owner, this.clock.now()],
              'taking a shard',
            )
          : await this.session.execute(
              `UPDATE ${t} SET epoch = ?, owner = ?, since = ? WHERE shard = ? IF epoch = ?`,
              [next, owner, this.clock.now(), shard, current],
              'taking a shard',
            );
      if (applied(rs)) return next;
    }
    throw new Error(`Shard ${shard} kept changing owner while it was being taken.`);
  }

  async holds(shard: number, epoch: number): Promise<boolean> {
    return (await this.epoch(shard)) === epoch;
  }

  private async epoch(shard: number): Promise<number | null> {
    const rs = await this.session.execute(
      `SELECT epoch FROM ${this.session.table('shard_owners')} WHERE shard = ?`,
      [shard],
      'reading a shard epoch',
      { idempotent: true, consistency: CONSISTENCY.serial },
    );
    return millis(rs.first()?.['epoch']);
  }
}
