import { randomUUID } from 'node:crypto';
import type { types } from 'cassandra-driver';
import type { SchedulePatch, StoredSchedule } from '../../../domain/schedule/schedule.js';
import { VersionConflict } from '../../../ports/requests.js';
import { isUncertainConditionalWrite } from '../errors.js';
import { CONSISTENCY, applied, millis, type CassandraSession, type Statement } from '../session.js';
import type { Timer, TimerEngine } from '../timers/engine.js';
import { patched, type ScheduleRow, type ScheduleRows } from './rows.js';
import { timerOf } from './timers.js';

/**
 * Every write of a schedule: one conditional write of its row, with its timer around it. A new timer is written
 * before the row and the old one dropped after it, so a crash in between leaves a stale timer (which readers check
 * against the row and skip) and never a schedule without its timer. Each drop is dated when its operation began,
 * so it cannot remove the same timer written again by a later change.
 */
export class ScheduleChanges {
  constructor(
    private readonly session: CassandraSession,
    private readonly rows: ScheduleRows,
    private readonly timers: TimerEngine<Timer>,
    private readonly shardCount: number,
  ) {}

  /**
   * The list entry and the timer go first (they point at nothing until the row lands, and readers skip such), then
   * the row, only if its ID is free. Storing the same schedule again (a retry after a lost answer) is no error.
   */
  async insert(s: StoredSchedule): Promise<void> {
    const during = 'storing a schedule';
    const timer = timerOf(this.shardCount, s);
    const timers = timer === null ? [] : [timer];
    await this.session.writeTogether([this.rows.listEntry(s), ...this.timers.statements(timers)], during);
    this.timers.written(timers);
    const changeId = randomUUID();
    const stored = await this.conditional(this.rows.insert(s, changeId), s.id, during, (seen) => seen?.changeId === changeId);
    if (stored === true) return;
    const existing = stored.first();
    const same =
      existing?.['project_id'] === s.projectId && existing['version'] === s.version && millis(existing['created_at']) === s.createdAt;
    if (!same) throw new Error(`Schedule ${s.id} exists already.`);
  }

  async update(projectId: string, id: string, expectedVersion: number, patch: SchedulePatch): Promise<StoredSchedule> {
    const during = 'updating a schedule';
    const asOf = this.timers.stamp();
    const conflict = () => new VersionConflict(`Schedule ${id} is not at version ${expectedVersion} in project ${projectId}.`);
    const current = (await this.rows.read(id, during))?.schedule;
    if (current === undefined || current.projectId !== projectId || current.version !== expectedVersion) throw conflict();
    const next = patched(current, patch);
    const before = timerOf(this.shardCount, current);
    const after = timerOf(this.shardCount, next);
    const moved = before?.dueAt !== after?.dueAt;
    if (moved && after !== null) await this.timers.write(after);
    const changeId = randomUUID();
    const result = await this.conditional(this.rows.update(id, expectedVersion, patch, changeId), id, during, (seen) => seen?.changeId === changeId);
    // The new timer stays behind on a conflict: the winner may have written the very same row.
    if (result !== true) throw conflict();
    if (moved && before !== null) this.timers.remove(before, asOf);
    return next;
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const during = 'deleting a schedule';
    const asOf = this.timers.stamp();
    const current = (await this.rows.read(id, during))?.schedule;
    if (current === undefined || current.projectId !== projectId) return false;
    // A lost answer: gone means deleted, by this write or one just before it.
    const result = await this.conditional(this.rows.delete(projectId, id), id, during, (seen) => seen === null);
    if (result !== true) return false;
    const timer = timerOf(this.shardCount, current);
    const leftovers: Statement[] = [this.rows.removeListEntry(projectId, id)];
    if (timer !== null) leftovers.push(this.timers.removeStatement(timer, asOf));
    // The schedule is gone once its row is: an entry or timer left by a failure here points at nothing, and readers
    // skip it, so the deletion is not reported as failed.
    await this.session.writeTogether(leftovers, during).catch(() => undefined);
    return true;
  }

  /**
   * Runs a conditional write: true when it applied, else its result (which holds the row that failed the
   * condition). When the answer is lost, a serial read (which completes any Paxos round under way) settles whether
   * it landed; if it did not, the error stands.
   */
  private async conditional(
    s: Statement,
    id: string,
    during: string,
    landed: (seen: ScheduleRow | null) => boolean,
  ): Promise<true | types.ResultSet> {
    try {
      const rs = await this.session.execute(s.query, s.params!, during);
      return applied(rs) ? true : rs;
    } catch (err) {
      if (isUncertainConditionalWrite(err) && landed(await this.rows.read(id, during, CONSISTENCY.serial))) return true;
      throw err;
    }
  }
}
