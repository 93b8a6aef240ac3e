import { types } from 'cassandra-driver';
import type { StoredRequest } from '../../../domain/request.js';
import { flowKeysColumn } from '../../request-json-columns.js';
import { timestampValue, type CassandraSession, type Statement } from '../session.js';
import { dayOf, lowerUrl } from './rows.js';

/**
 * The list's indexes (schema version 17): a request's list entry again under one value of a filter, so that filter
 * reads only the requests that have the value. Status code, queue and flow key, in that order of preference when a
 * query names several: a code someone filters by is usually the rarest.
 */
export type ListIndexName = 'status_code' | 'flow_key' | 'queue';

interface IndexTable {
  readonly table: string;
  /** The partition key column holding the filter's value, beside project_id and day. */
  readonly key: string;
}

const INDEXES: Readonly<Record<ListIndexName, IndexTable>> = {
  status_code: { table: 'requests_by_status_code', key: 'status_code' },
  flow_key: { table: 'requests_by_flow_key', key: 'flow_key' },
  queue: { table: 'requests_by_queue', key: 'queue_name' },
};

/** What an index row copies of the list entry, after its partition key; the list reads them back as an entry. */
export const INDEX_ROW_COLUMNS = ['created_at', 'id', 'url_lower', 'method', 'source', 'schedule_id', 'queue', 'flow_keys'] as const;

/** One value of one index: the partition a query with that filter reads. */
export interface IndexKey {
  readonly index: ListIndexName;
  readonly value: string | number;
}

/** The index a query's filters are best served by, with the value, or null when it names none of them. */
export function indexFor(q: { responseStatusCode?: number | undefined; flowKey?: string | undefined; queue?: string | undefined }): IndexKey | null {
  if (q.responseStatusCode !== undefined) return { index: 'status_code', value: q.responseStatusCode };
  if (q.flowKey !== undefined) return { index: 'flow_key', value: q.flowKey };
  if (q.queue !== undefined) return { index: 'queue', value: q.queue };
  return null;
}

/** The select of one day of an index, in the list's bounds (see `RequestList`'s entries query). */
export function selectIndexDay(session: CassandraSession, index: ListIndexName): string {
  const { table, key } = INDEXES[index];
  return `SELECT ${INDEX_ROW_COLUMNS.join(', ')} FROM ${session.table(table)}
      WHERE project_id = ? AND ${key} = ? AND day = ? AND (created_at, id) < (?, ?) AND (created_at) >= (?) LIMIT ?`;
}

/** The keys a request is indexed under that never change: its queue and each of its flow keys. */
function fixedKeys(r: StoredRequest): IndexKey[] {
  return [{ index: 'queue', value: r.queue }, ...[...new Set(r.flowKeys)].map((k): IndexKey => ({ index: 'flow_key', value: k }))];
}

/** Every key `r` is indexed under as it now is: the fixed ones, and its last status code if it has one. */
function allKeys(r: StoredRequest): IndexKey[] {
  const code = r.lastStatusCode;
  return code === null ? fixedKeys(r) : [...fixedKeys(r), { index: 'status_code', value: code }];
}

/** How an index row is written: plainly, or at an owner timestamp, with a time to live or not. */
interface WriteAs {
  readonly stamp?: bigint;
  readonly ttl?: number;
}

function insertRow(session: CassandraSession, r: StoredRequest, key: IndexKey, as: WriteAs): Statement {
  const { table, key: keyColumn } = INDEXES[key.index];
  const columns = ['project_id', keyColumn, 'day', ...INDEX_ROW_COLUMNS];
  const using = [...(as.ttl === undefined ? [] : ['TTL ?']), ...(as.stamp === undefined ? [] : ['TIMESTAMP ?'])];
  const values = [r.projectId, key.value, dayOf(r.createdAt), r.createdAt, r.id, lowerUrl(r.url), r.method, r.source, r.scheduleId, r.queue, flowKeysColumn(r.flowKeys)];
  return {
    query: `INSERT INTO ${session.table(table)} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})${using.length === 0 ? '' : ` USING ${using.join(' AND ')}`}`,
    params: [
      ...values.map((v) => v ?? types.unset),
      ...(as.ttl === undefined ? [] : [as.ttl]),
      ...(as.stamp === undefined ? [] : [timestampValue(as.stamp)]),
    ],
  };
}

/**
 * The index rows of a new request: its queue and flow keys, and its status code when it comes with one (an import of
 * requests attempted elsewhere). Written with its list entry, as plainly: a clock timestamp lies below every owner
 * timestamp, so a late repeat of the insert never brings back a code row an owner has since moved.
 */
export function insertIndexRows(session: CassandraSession, r: StoredRequest): Statement[] {
  return allKeys(r).map((key) => insertRow(session, r, key, {}));
}

/**
 * Every index row of `r` again with `ttl`, at `stamp`: its list entry's retention rewrite (`RequestExpiry`) does
 * the same. Rows have no cell but those written here, so none outlives the time to live.
 */
export function expiringIndexRows(session: CassandraSession, r: StoredRequest, ttl: number, stamp: bigint): Statement[] {
  return allKeys(r).map((key) => insertRow(session, r, key, { ttl, stamp }));
}

/**
 * The move of `next`'s status code row when an attempt changed the code from `before`'s: the old row deleted and
 * the new one written, both at the change's owner timestamp, so an owner that lost the shard loses both as it loses
 * the request's own cells. Nothing when the code stayed.
 */
export function statusCodeMove(session: CassandraSession, next: StoredRequest, before: StoredRequest, stamp: bigint): Statement[] {
  const from = before.lastStatusCode;
  const to = next.lastStatusCode;
  if (from === to) return [];
  const { table, key } = INDEXES.status_code;
  const statements: Statement[] = [];
  if (from !== null) {
    statements.push({
      query: `DELETE FROM ${session.table(table)} USING TIMESTAMP ? WHERE project_id = ? AND ${key} = ? AND day = ? AND created_at = ? AND id = ?`,
      params: [timestampValue(stamp), next.projectId, from, dayOf(next.createdAt), next.createdAt, next.id],
    });
  }
  if (to !== null) statements.push(insertRow(session, next, { index: 'status_code', value: to }, { stamp }));
  return statements;
}
