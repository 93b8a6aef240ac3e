import type { Clock } from '../../../domain/clock.js';
import type { ShardFence } from '../../../ports/work-shards.js';
import { CONSISTENCY, applied, millis, type CassandraSession } from '../session.js';

/**
 * Shard epochs in `shard_owners`, raised with conditional writes: each new owner gets a higher epoch than every
 * owner before it (read with Paxos, LOCAL_SERIAL, before each raise), and holders read the epochs back to notice
 * they were superseded.
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

  /**
   * One read of every held shard at the read consistency, not a Paxos read per shard: a takeover's conditional
   * write is read back once committed, and one still in progress shows at the next check. What keeps a superseded
   * holder from writing is the epoch every write carries, not this check; an idle process makes it every few
   * seconds, and a Paxos read per shard was most of what such a process cost the node.
   *
   * Only a higher epoch than the one held means a takeover (every taker raises it). A lower one, or none, is a read
   * that missed the holder's own raise; taking it for a takeover left the shard to nobody until the next rebalance,
   * since the group still assigned it to this process.
   */
  async superseded(held: ReadonlyMap<number, number>): Promise<Map<number, number>> {
    if (held.size === 0) return new Map();
    const rs = await this.session.read(`SELECT shard, epoch FROM ${this.session.table('shard_owners')} WHERE shard IN ?`, [[...held.keys()]], 'reading shard epochs');
    const latest = new Map(rs.rows.map((row) => [row['shard'] as number, millis(row['epoch']) ?? 0]));
    return new Map([...held].flatMap(([shard, epoch]) => ((latest.get(shard) ?? 0) > epoch ? [[shard, latest.get(shard)!] as const] : [])));
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
