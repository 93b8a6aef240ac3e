import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { ACTIVE_STATUSES } from '../../domain/request-lifecycle/index.js';
import { statusList } from '../request-patch-columns.js';
import type { BacklogSnapshot } from './backlog-gauges.js';

/** Waiting requests read per statement: a few milliseconds of the event loop each. */
const CHUNK = 5_000;

/*
 * The condition must read exactly as the partial index `requests_due` is declared (embedded migrations), or SQLite
 * will not use it; the index holds only requests that are still active, so a reading costs what the backlog
 * holds, never what the history holds. The domain's list of active statuses is in the index's order.
 */
const ACTIVE = `status IN ${statusList(ACTIVE_STATUSES)}`;

/** One chunk of active requests in `requests_due` order after a position, summed up, with the chunk's last position. */
const CHUNK_SQL = `
  WITH chunk AS MATERIALIZED (
    SELECT due_at, id, status, attempt_count FROM requests
    WHERE ${ACTIVE} AND (due_at, id) > (@dueAt, @id)
    ORDER BY due_at, id LIMIT @limit)
  SELECT COUNT(*),
    TOTAL(status = 'queued' AND attempt_count = 0),
    TOTAL(status = 'scheduled'),
    TOTAL(status = 'queued' AND attempt_count > 0),
    (SELECT due_at FROM chunk ORDER BY due_at DESC, id DESC LIMIT 1),
    (SELECT id FROM chunk ORDER BY due_at DESC, id DESC LIMIT 1)
  FROM chunk`;

/** The earliest due time of a waiting request: the first entries of the index, skipping attempts in flight. */
const OLDEST_SQL = `SELECT MIN(due_at) FROM requests WHERE ${ACTIVE} AND status <> 'delivering'`;

type ChunkRow = [count: number, queued: number, scheduled: number, retrying: number, lastDueAt: number | null, lastId: string | null];

/**
 * The embedded backlog, from SQL aggregates over the `requests_due` index, on a read-only connection of its own.
 * The oldest due time is one index lookup. Counting by state needs each waiting row's status and attempt count,
 * about a microsecond a row: it reads the index in chunks of `CHUNK`, yielding to the event loop between them, so
 * a backlog of a million costs about 0.2 s of CPU spread over a second or so, never one long stall. The counts
 * are then a sum of chunks read a moment apart, not one snapshot: good for a gauge, not for accounting.
 */
export class EmbeddedBacklog {
  private readonly db: Database.Database;
  private readonly chunk: Database.Statement;
  private readonly oldest: Database.Statement;

  constructor(path: string) {
    this.db = new Database(path, { readonly: true, fileMustExist: true, timeout: 5_000 });
    this.chunk = this.db.prepare(CHUNK_SQL).raw(true);
    this.oldest = this.db.prepare(OLDEST_SQL).pluck();
  }

  async read(): Promise<BacklogSnapshot> {
    const oldestDueAt = this.oldest.get() as number | null;
    let queued = 0;
    let scheduled = 0;
    let awaitingRetry = 0;
    let after: { dueAt: number; id: string } = { dueAt: Number.MIN_SAFE_INTEGER, id: '' };
    for (;;) {
      const [count, q, s, r, lastDueAt, lastId] = this.chunk.get({ ...after, limit: CHUNK }) as ChunkRow;
      queued += q;
      scheduled += s;
      awaitingRetry += r;
      if (count < CHUNK || lastDueAt === null || lastId === null) break;
      after = { dueAt: lastDueAt, id: lastId };
      // A yield, not a wait: API calls and deliveries run between chunks.
      await nextTurn();
      if (!this.db.open) break;
    }
    return { counts: { queued, scheduled, awaitingRetry }, oldestDueAt };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
