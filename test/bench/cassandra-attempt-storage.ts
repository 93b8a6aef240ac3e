/**
 * What an attempt costs on Cassandra's disk, with and without a captured response excerpt. For each variant a fresh
 * keyspace gets the schema's migrations and `--requests` requests (default 20,000; 200-byte bodies, each with its
 * list entry), then one attempt each, written with the statements the store writes when it records an attempt that
 * is retried: the attempt row, the request's `last_status_code` and its list entry's. The tables are then flushed
 * (the table option `memtable_flush_period_in_ms`, as no JMX may be at hand for `nodetool flush`) and their SSTable
 * files on disk summed (every component, as `nodetool tablestats` counts "Space used (live)": LZ4-compressed).
 *
 *   bash test/infra/infra.sh up && npx tsx test/bench/cassandra-attempt-storage.ts [--requests 20000]
 *
 * Variants: no attempt (the base every other one is measured against); a response kept without a body (capture
 * off, or an empty answer); a 2 KiB excerpt of JSON text; a 2 KiB excerpt of random bytes (what compression cannot
 * shrink, as a compressed or binary answer); no response at all (a network error).
 */
import './distributed-env.js';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/adapters/cassandra/migrations.js';
import { insertAttempt, insertListEntry, insertRequest, listEntryStatusCode } from '../../src/adapters/cassandra/requests/rows.js';
import { CassandraSession, timestampValue } from '../../src/adapters/cassandra/session.js';
import { ownerTimestamp } from '../../src/adapters/cassandra/ownership/owner-timestamps.js';
import type { AttemptRecord, CapturedResponse, StoredRequest } from '../../src/domain/request.js';
import { newRequestId } from '../../src/domain/ids.js';
import { aRequest } from '../contract/suite/harness.js';
import { infra } from '../support/infra.js';
import { assertInfra, benchSession, forEachBounded, parseArgs, printTable, sleep } from './distributed-cluster.js';

const args = parseArgs();
const total = Number(args.get('requests') ?? 20_000);
const EXCERPT = 2048;
const TABLES = ['requests', 'requests_by_project'] as const;

interface Variant {
  readonly name: string;
  /** The attempt's answer; undefined for no attempt at all. */
  readonly response?: (i: number) => CapturedResponse | null;
}

const headers: CapturedResponse['headers'] = [['content-type', 'application/json'], ['x-request-id', 'b1946ac9-2d7e-4c55-9f5b-5c3e2a1f0c7d']];
/** JSON as receivers answer it: field names repeat, values vary. */
function jsonExcerpt(i: number): Uint8Array {
  let text = '{"errors":[';
  for (let n = 0; text.length < EXCERPT; n++) text += `{"code":"E${(i * 31 + n) % 9973}","field":"items[${n}].price","message":"must be at most ${(i + n) % 1000}"},`;
  return new TextEncoder().encode(text.slice(0, EXCERPT));
}

const VARIANTS: readonly Variant[] = [
  { name: 'no attempt (base)' },
  { name: 'attempt, no response (network error)', response: () => null },
  { name: 'attempt, response without a body', response: () => ({ headers, body: null, bodyTruncated: false }) },
  { name: 'attempt, 2 KiB JSON excerpt', response: (i) => ({ headers, body: jsonExcerpt(i), bodyTruncated: true }) },
  { name: 'attempt, 2 KiB random-byte excerpt', response: () => ({ headers, body: new Uint8Array(randomBytes(EXCERPT)), bodyTruncated: true }) },
];

function attemptOf(r: StoredRequest, response: CapturedResponse | null): AttemptRecord {
  const startedAt = r.createdAt + 10;
  return {
    requestId: r.id, attemptNumber: 1, status: response === null ? 'errored' : 'failed', responseStatusCode: response === null ? null : 503,
    errorMessage: response === null ? 'connect ECONNREFUSED' : 'status 503', durationMs: 87, startedAt, completedAt: startedAt + 87, finalReason: null, response,
    retry: {
      reason: 'http_503', retryAfterRaw: '', retryAfterTruncated: false, retryAfterEscaped: false, retryAfterStatus: 'absent', retryAfterDelayMs: 0,
      backoffDelayMs: 1000, selectedDelayMs: 1000, delaySource: 'backoff', nextAttemptAt: startedAt + 1087,
    },
  };
}

/** The bytes of a table's live SSTables, every component, and how many there are. */
function tableBytes(dataDir: string, keyspace: string, table: string): { bytes: number; sstables: number } {
  const ksDir = join(dataDir, keyspace);
  const dir = readdirSync(ksDir).find((d) => d.startsWith(`${table}-`));
  if (dir === undefined) return { bytes: 0, sstables: 0 };
  let bytes = 0;
  let sstables = 0;
  for (const file of readdirSync(join(ksDir, dir))) {
    const path = join(ksDir, dir, file);
    if (!statSync(path).isFile()) continue;
    bytes += statSync(path).size;
    if (file.endsWith('-Data.db')) sstables++;
  }
  return { bytes, sstables };
}

async function measure(variant: Variant, dataDir: string): Promise<Record<string, number>> {
  const keyspace = `ferry_bench_attempt_bytes_${process.pid}_${VARIANTS.indexOf(variant)}`;
  const session = await CassandraSession.connect(infra.cassandra.connection(keyspace));
  try {
    await migrate(session, infra.cassandra.connection(keyspace).replication, { now: () => Date.now() } as never);
    const created = Date.now() - 3_600_000;
    const body = new TextEncoder().encode(JSON.stringify({ event: 'order.created', pad: 'x'.repeat(164) }));
    await forEachBounded(total, 32, async (i) => {
      const createdAt = created + i;
      const r = aRequest({ id: newRequestId(createdAt), projectId: 'prj_bench_attempt_bytes', createdAt, updatedAt: createdAt, dueAt: createdAt, body });
      await session.batch([insertRequest(session, r, body), insertListEntry(session, r)], 'inserting a request', { logged: false });
      if (variant.response === undefined) return;
      const response = variant.response(i);
      const attempt = attemptOf(r, response);
      const stamp = ownerTimestamp(1, BigInt(i))!;
      const after = { ...r, attemptCount: 1, lastStatusCode: attempt.responseStatusCode };
      const entry = listEntryStatusCode(session, after, r, stamp);
      const statusCell = {
        query: `UPDATE ${session.table('requests')} USING TIMESTAMP ? SET last_status_code = ?, attempt_count = ? WHERE id = ?`,
        params: [timestampValue(stamp), after.lastStatusCode, 1, r.id],
      };
      await session.batch([insertAttempt(session, attempt, stamp), statusCell, ...(entry === null ? [] : [entry])], 'recording an attempt', { logged: false });
    });
    // No nodetool without JMX: the table option flushes the memtable once its period has passed.
    for (const table of TABLES) await session.execute(`ALTER TABLE ${keyspace}.${table} WITH memtable_flush_period_in_ms = 2000`, [], 'asking for a flush');
    let last = '';
    for (let stable = 0; stable < 3; ) {
      await sleep(3000);
      const now = JSON.stringify(TABLES.map((t) => tableBytes(dataDir, keyspace, t)));
      stable = now === last && now.includes('"sstables":1') ? stable + 1 : 0;
      last = now;
    }
    return Object.fromEntries(TABLES.map((t) => [t, tableBytes(dataDir, keyspace, t).bytes]));
  } finally {
    await session.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`, [], 'dropping a bench keyspace').catch(() => undefined);
    await session.close();
  }
}

await assertInfra();
const probe = await benchSession();
const setting = (await probe.read("SELECT value FROM system_views.settings WHERE name = 'data_file_directories'", [], 'reading a setting')).first();
await probe.close();
const dataDir = String(setting?.['value'] ?? '').replace(/^\[|\]$/g, '').split(',')[0]!.trim();
if (!existsSync(dataDir)) throw new Error(`Cassandra's data directory ${dataDir} is not readable from here.`);
console.log(`${total.toLocaleString('en')} requests per variant, data in ${dataDir}`);
const rows: Array<Array<string | number>> = [];
let base: Record<string, number> | null = null;
for (const variant of VARIANTS) {
  const bytes = await measure(variant, dataDir);
  base ??= bytes;
  const per = (t: string) => Math.round((bytes[t]! - base![t]!) / total);
  rows.push([variant.name, ...TABLES.map((t) => bytes[t]!.toLocaleString('en')), ...TABLES.map((t) => (variant.response === undefined ? '–' : per(t))),
    variant.response === undefined ? '–' : TABLES.reduce((sum, t) => sum + per(t), 0)]);
  console.log(`  ${variant.name}: ${JSON.stringify(bytes)}`);
}
printTable(
  `On-disk bytes after a flush, ${total.toLocaleString('en')} requests; per attempt = (variant − base) / requests`,
  ['variant', ...TABLES.map((t) => `${t} bytes`), ...TABLES.map((t) => `${t} per attempt`), 'per attempt'],
  rows,
);
