import type { StoredRequest } from '../../../domain/request.js';
import { isTerminal } from '../../../domain/request-lifecycle/index.js';
import { isWithdrawn } from '../../../domain/schedule/enqueued-ahead.js';
import type { ListPosition, RequestListQuery } from '../../../ports/requests.js';
import { flowKeysColumn, flowKeysFromColumn } from '../../request-json-columns.js';
import { mapBounded } from '../shared/concurrency.js';
import { indexFor, selectIndexDay, type IndexKey, type ListIndexName } from './list-indexes.js';
import { dayOf, lowerUrl, type RequestRows } from './rows.js';
import { millis, type CassandraSession } from '../session.js';

/** Entries of `project_days` per read; a project lists one per UTC day it created requests on. */
const DAYS_PER_READ = 32;
/** Requests fetched at once to check what the list entries do not carry: status and the terminal cutoff. */
const MAX_FETCH_AT_ONCE = 100;
/**
 * How many requests created before the cutoff `hasTerminalBefore` checks, newest first: it answers false when
 * all of them are still active. Old requests are nearly always terminal, so the first is usually enough.
 */
export const HISTORY_CHECKED = 100;
const HISTORY_AT_ONCE = 20;

/**
 * How close the list indexes' migration must follow the one that made the request tables for both to count as one
 * run: a keyspace made with the indexes, so every request in it is indexed.
 */
const SAME_RUN_MS = 10 * 60_000;

const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

/** The copy of a request's filterable fields in `requests_by_project`: the immutable ones and the last status code. */
interface ListEntry {
  readonly createdAt: number;
  readonly id: string;
  readonly urlLower: string;
  readonly method: string;
  readonly source: string;
  /** Null for a request no schedule created, and for every entry written before entries carried it. */
  readonly scheduleId: string | null;
  /** Null for every entry written before entries carried the queue and flow keys (schema version 12). */
  readonly queue: string | null;
  /** As the request keeps them (`flowKeysColumn`): null for none, and when `queue` is null, unknown. */
  readonly flowKeys: string | null;
  /** The last attempt's status code, written with each attempt (see `listEntryStatusCode`); null when none. */
  readonly lastStatusCode: number | null;
}

/** The list: walks a project's days newest first, filters on the list entries, then fetches the requests. */
export class RequestList {
  private readonly selectDays: string;
  private readonly selectEntries: string;
  private readonly selectIndex: Readonly<Record<ListIndexName, string>>;
  private readonly selectMigrations: string;
  /** The first day the list indexes cover (see `indexedFromDay`), once read. */
  private indexedFrom: Promise<number> | null = null;

  constructor(
    private readonly session: CassandraSession,
    private readonly rows: RequestRows,
  ) {
    this.selectDays = `SELECT day FROM ${session.table('project_days')}
      WHERE project_id = ? AND day < ? AND day >= ? LIMIT ?`;
    // Both bounds in tuple form: CQL does not mix single- and multi-column restrictions of clustering columns.
    this.selectEntries = `SELECT created_at, id, url_lower, method, source, schedule_id, queue, flow_keys, last_status_code FROM ${session.table('requests_by_project')}
      WHERE project_id = ? AND day = ? AND (created_at, id) < (?, ?) AND (created_at) >= (?) LIMIT ?`;
    this.selectIndex = {
      status_code: selectIndexDay(session, 'status_code'),
      flow_key: selectIndexDay(session, 'flow_key'),
      queue: selectIndexDay(session, 'queue'),
    };
    this.selectMigrations = `SELECT version, applied_at FROM ${session.table('schema_migrations')} WHERE version IN (2, 17)`;
  }

  async list(q: RequestListQuery): Promise<StoredRequest[]> {
    if (q.limit <= 0) return [];
    if (q.id !== undefined) return this.byId(q, q.id);
    const found: StoredRequest[] = [];
    let pending: ListEntry[] = [];
    // Whether a fetched request may still be dropped by a filter its entry could not answer.
    let unsure = q.status !== undefined;
    const fetchPending = async () => {
      const fetched = await mapBounded(pending, pending.length, (e) => this.rows.requestAsRead(e.id, 'listing requests'));
      const entries = pending;
      pending = [];
      unsure = q.status !== undefined;
      fetched.forEach((r, i) => {
        // An entry whose time is not its request's is the stale one of a callback written twice (see README.md).
        if (r !== null && r.createdAt === entries[i]!.createdAt && found.length < q.limit && visible(r, q)) found.push(r);
      });
    };
    const entryPage = Math.min(Math.max(2 * q.limit, 50), 1000);
    const index = indexFor(q);
    for await (const entry of this.entries(q.projectId, upperBound(q), q.from ?? Number.MIN_SAFE_INTEGER, entryPage, index)) {
      const match = matches(entry, q);
      if (match === false) continue;
      pending.push(entry);
      if (match === undefined) unsure = true;
      // A filter the entry could not answer, or the cutoff, may drop some of the fetched requests: fetch more than
      // strictly needed then.
      const remaining = q.limit - found.length;
      if (pending.length >= Math.min(unsure ? 2 * remaining : remaining, MAX_FETCH_AT_ONCE)) {
        await fetchPending();
        if (found.length >= q.limit) break;
      }
    }
    if (pending.length > 0) await fetchPending();
    return found;
  }

  /** See `HISTORY_CHECKED` for how far it looks. */
  async hasTerminalBefore(projectId: string, cutoff: number): Promise<boolean> {
    let checked = 0;
    let pending: string[] = [];
    const anyTerminal = async () => {
      const statuses = await mapBounded(pending, pending.length, (id) => this.rows.status(id, 'checking for old requests'));
      checked += pending.length;
      pending = [];
      return statuses.some((status) => status !== null && isTerminal(status));
    };
    for await (const entry of this.entries(projectId, { createdAt: cutoff, id: '' }, Number.MIN_SAFE_INTEGER, HISTORY_AT_ONCE)) {
      pending.push(entry.id);
      if (pending.length < HISTORY_AT_ONCE) continue;
      if (await anyTerminal()) return true;
      if (checked >= HISTORY_CHECKED) return false;
    }
    return pending.length > 0 && (await anyTerminal());
  }

  private async byId(q: RequestListQuery, id: string): Promise<StoredRequest[]> {
    const r = await this.rows.requestAsRead(id, 'listing requests');
    if (r === null || r.projectId !== q.projectId || !visible(r, q)) return [];
    const entry = entryOf(r);
    const inRange = before(entry, upperBound(q)) && (q.from === undefined || r.createdAt >= q.from);
    return inRange && matches(entry, q) === true ? [r] : [];
  }

  /**
   * A project's list entries below `below` in (createdAt, id) order, created at `from` or later, newest first: all
   * of them, or with `index` only those under its value, read from the index (on the days it covers) in the same
   * order and bounds, so the cursor and the time range work alike either way.
   */
  private async *entries(projectId: string, below: ListPosition, from: number, pageSize: number, index: IndexKey | null = null): AsyncGenerator<ListEntry> {
    let daysBelow = clampInt(dayOf(below.createdAt) + 1);
    const firstDay = clampInt(dayOf(from));
    const indexedFrom = index === null ? Infinity : await this.indexedFromDay();
    for (;;) {
      const days = await this.session.read(this.selectDays, [projectId, daysBelow, firstDay, DAYS_PER_READ], 'listing requests');
      for (const row of days.rows) {
        const day = row['day'] as number;
        const indexed = index !== null && day >= indexedFrom;
        let position = below;
        for (;;) {
          const bounds = [day, position.createdAt, position.id, from, pageSize];
          const page = indexed
            ? (await this.session.read(this.selectIndex[index.index], [projectId, index.value, ...bounds], 'listing requests')).rows.map((r) => indexEntryFromRow(r, index))
            : (await this.session.read(this.selectEntries, [projectId, ...bounds], 'listing requests')).rows.map(entryFromRow);
          yield* page;
          if (page.length < pageSize) break;
          position = page.at(-1)!;
        }
      }
      if (days.rows.length < DAYS_PER_READ) return;
      daysBelow = days.rows.at(-1)!['day'] as number;
    }
  }

  /**
   * The first UTC day whose requests are all in the list indexes (schema version 17): every day when the keyspace
   * was made with them, else the day after they were added (requests accepted earlier, or that day by a process
   * not yet upgraded, have no index rows). Days before it are walked entry by entry, as before the indexes; with the
   * retention window they pass out of the list.
   */
  private indexedFromDay(): Promise<number> {
    this.indexedFrom ??= this.readIndexedFrom().catch((err: unknown) => {
      this.indexedFrom = null;
      throw err;
    });
    return this.indexedFrom;
  }

  private async readIndexedFrom(): Promise<number> {
    const rows = (await this.session.read(this.selectMigrations, [], 'listing requests')).rows;
    const appliedAt = new Map(rows.map((r) => [r['version'] as number, millis(r['applied_at'])]));
    const tables = appliedAt.get(2) ?? null;
    const indexes = appliedAt.get(17) ?? null;
    if (indexes === null) return Infinity;
    if (tables !== null && indexes - tables < SAME_RUN_MS) return -Infinity;
    return dayOf(indexes) + 1;
  }
}

/**
 * An index row as a list entry. It carries no status code but the status code index's own value: a query with a
 * code filter is always served by that index (`indexFor`), so the others' rows never need one.
 */
function indexEntryFromRow(row: Record<string, unknown>, index: IndexKey): ListEntry {
  return { ...entryFromRow(row), lastStatusCode: index.index === 'status_code' ? (index.value as number) : null };
}

function entryFromRow(row: Record<string, unknown>): ListEntry {
  return {
    createdAt: millis(row['created_at'])!,
    id: row['id'] as string,
    // Empty for what is left of an entry whose other cells expired before a late status code: its request is gone too.
    urlLower: (row['url_lower'] as string | null) ?? '',
    method: row['method'] as string,
    source: row['source'] as string,
    scheduleId: (row['schedule_id'] as string | null) ?? null,
    queue: (row['queue'] as string | null) ?? null,
    flowKeys: (row['flow_keys'] as string | null) ?? null,
    lastStatusCode: (row['last_status_code'] as number | null) ?? null,
  };
}

/** The entry `r` has, or would have, in the list. */
function entryOf(r: StoredRequest): ListEntry {
  const { createdAt, id, method, source, scheduleId, queue, lastStatusCode } = r;
  return { createdAt, id, urlLower: lowerUrl(r.url), method, source, scheduleId, queue, flowKeys: flowKeysColumn(r.flowKeys), lastStatusCode };
}

/**
 * The filters a list entry answers on its own: false when it rules the request out, undefined when only the request
 * can tell (an entry written before entries carried the schedule of a recurring request, or the queue and flow
 * keys), true otherwise.
 */
function matches(e: ListEntry, q: RequestListQuery): boolean | undefined {
  const own =
    (q.method === undefined || e.method === q.method) &&
    (q.source === undefined || e.source === q.source) &&
    (q.urlContains === undefined || e.urlLower.includes(lowerUrl(q.urlContains))) &&
    // Written with the attempt that set it, so an entry without one belongs to a request without one.
    (q.responseStatusCode === undefined || e.lastStatusCode === q.responseStatusCode);
  if (!own) return false;
  let sure = true;
  if (q.queue !== undefined || q.flowKey !== undefined) {
    if (e.queue === null) sure = false;
    else if (q.queue !== undefined && e.queue !== q.queue) return false;
    else if (q.flowKey !== undefined && !flowKeysFromColumn(e.flowKeys).includes(q.flowKey)) return false;
  }
  if (q.scheduleId !== undefined) {
    if (e.scheduleId !== null) {
      if (e.scheduleId !== q.scheduleId) return false;
    } else if (e.source === 'recurring') sure = false;
    else return false;
  }
  return sure ? true : undefined;
}

/**
 * The filters that need the request itself; the schedule, queue and flow key are checked again for entries that
 * could not tell, and the status code for an entry that lags behind its request's latest attempt. An occurrence withdrawn before its instant never existed, so it is never listed.
 */
function visible(r: StoredRequest, q: RequestListQuery): boolean {
  return (
    !isWithdrawn(r) &&
    (q.status === undefined || r.status === q.status) &&
    (q.scheduleId === undefined || r.scheduleId === q.scheduleId) &&
    (q.queue === undefined || r.queue === q.queue) &&
    (q.flowKey === undefined || r.flowKeys.includes(q.flowKey)) &&
    (q.responseStatusCode === undefined || r.lastStatusCode === q.responseStatusCode) &&
    !(isTerminal(r.status) && r.createdAt < q.terminalCutoff)
  );
}

/** The exclusive upper end of the list: `after`, or creation before `to` (no ID sorts below the empty one). */
function upperBound(q: RequestListQuery): ListPosition {
  const to = { createdAt: q.to ?? Number.MAX_SAFE_INTEGER, id: '' };
  return q.after !== undefined && before(q.after, to) ? q.after : to;
}

/** Whether `a` comes strictly before `b` in (createdAt, id) order, the order bounds are checked in. */
function before(a: ListPosition, b: ListPosition): boolean {
  return a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id);
}

function clampInt(n: number): number {
  return Math.min(Math.max(n, INT_MIN), INT_MAX);
}
