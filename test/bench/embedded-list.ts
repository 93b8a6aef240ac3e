/**
 * List latency of the embedded store over a large project, through `RequestStore.list` (no HTTP): inserts
 * `--requests` requests (default 1,000,000) into one project over `--days` days, mostly terminal, then times the
 * first page (`limit` 51, as the API asks for a page of 50) of each filter, one call at a time, `--calls` times:
 *  - queues: `default` (most requests), `billing` (1%), `rare` (0.01%), and one no request has;
 *  - flow keys: every request names `tenant:<n>` (1,000 tenants); `vendor:acme` 2%, `vendor:rare` 0.01%, one none has;
 *  - a queue or a key with `status=failed`, 20 pages deep by cursor, and a one-day window;
 *  - last response status codes (`response_status_code`): 200 (every success), 500 (most failures, 6%), 503 (the
 *    rest of the failures and the requests waiting for a retry), 410 (0.01%), and one no request has; each also
 *    against a walk of the project's list index that checks each row's code, which is what the index
 *    `requests_by_last_status` is measured against.
 * For flow keys it also times the other way to serve them, a scan of each request's `flow_keys` JSON in list order
 * (`json_each`), against the same file: that is what the `request_flow_keys` rows are measured against.
 *
 *   npm run build && npx tsx test/bench/embedded-list.ts [--requests 1000000] [--days 10] [--calls 50] [--dir <tmp>]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openEmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import type { RequestStatus, StoredRequest } from '../../src/domain/request.js';
import type { RequestListQuery } from '../../src/ports/requests.js';
import { aRequest } from '../contract/suite/harness.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const total = Number(args.get('requests') ?? 1_000_000);
const days = Number(args.get('days') ?? 10);
const calls = Number(args.get('calls') ?? 50);
const dir = mkdtempSync(join(args.get('dir') ?? tmpdir(), 'ferry-bench-list-'));
const path = join(dir, 'bench.db');
const backend = openEmbeddedBackend({ path });
const PROJECT = 'prj_bench_list';
const DAY_MS = 86_400_000;
const start = Date.now() - days * DAY_MS;
const body = new TextEncoder().encode('x'.repeat(200));

/** Deterministic mix per index, as `distributed-list.ts` mixes them: mostly terminal. */
function requestAt(i: number): StoredRequest {
  const r = (i * 7919) % 10_000;
  const status: RequestStatus = r % 100 < 85 ? 'succeeded' : r % 100 < 92 ? 'failed' : 'queued';
  const queue = r < 100 ? 'billing' : r === 4242 ? 'rare' : 'default';
  const k = (i * 2_654_435_761) % 1_000_003; // a second mix, so the keys do not follow the queues and statuses
  const flowKeys = [`tenant:${i % 1000}`, ...(k % 50 === 7 ? ['vendor:acme'] : []), ...(k % 10_000 === 4243 ? ['vendor:rare'] : [])];
  const createdAt = start + Math.floor((i / total) * days * DAY_MS);
  const ended = status !== 'queued';
  // Queued ones half wait for a retry after a 503, half were never attempted; failures mostly got a 500.
  const lastStatusCode = status === 'succeeded' ? 200 : status === 'failed' ? (k % 700 === 3 ? 410 : k % 8 === 0 ? 503 : 500) : k % 2 === 0 ? 503 : null;
  return aRequest({ projectId: PROJECT, body, queue, flowKeys, status, createdAt, updatedAt: createdAt, dueAt: ended ? null : createdAt, lastStatusCode });
}

async function fill(): Promise<void> {
  const started = performance.now();
  const batch = 1000;
  for (let i = 0; i < total; i += batch) {
    await backend.requests.insertMany(Array.from({ length: Math.min(batch, total - i) }, (_, j) => requestAt(i + j)));
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`inserted ${total} requests in ${seconds.toFixed(1)} s (${Math.round(total / seconds)}/s, batches of ${batch})`);
}

async function time(label: string, run: () => Promise<unknown[]> | unknown[], n = calls): Promise<void> {
  const ms: number[] = [];
  let found = 0;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    found = (await run()).length;
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  console.log(`| ${label} | ${found} | ${at(ms, 50)} ms | ${at(ms, 99)} ms |`);
}

function at(sorted: number[], p: number): string {
  const ms = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(0);
}

const list = (q: Partial<RequestListQuery>) => () => backend.requests.list({ projectId: PROJECT, terminalCutoff: 0, limit: 51, to: Date.now() + 1, ...q });

/** Twenty pages by cursor, timing each page after the first. */
async function deep(label: string, q: Partial<RequestListQuery>): Promise<void> {
  let after = (await list(q)())[49];
  const pages: Array<() => Promise<unknown[]>> = [];
  for (let p = 0; p < 20 && after !== undefined; p++) {
    const page = await list({ ...q, after })();
    pages.push(list({ ...q, after }));
    after = page[49];
  }
  let p = 0;
  await time(`${label}, 20 pages deep by cursor (each page)`, () => pages[p++ % pages.length]!(), pages.length);
}

try {
  await fill();
  const raw = new Database(path, { readonly: true });
  console.log('\n| call (first page of 50) | rows | p50 | p99 |\n| --- | --- | --- | --- |');
  await time('no filter', list({}));
  for (const queue of ['default', 'billing', 'rare', 'absent']) await time(`queue=${queue}`, list({ queue }));
  await time('queue=billing&status=failed', list({ queue: 'billing', status: 'failed' }));
  await time('queue=billing, a one-day window', list({ queue: 'billing', from: start + DAY_MS, to: start + 2 * DAY_MS }));
  await deep('queue=billing', { queue: 'billing' });
  for (const flowKey of ['tenant:7', 'vendor:acme', 'vendor:rare', 'vendor:absent']) await time(`flow_key=${flowKey}`, list({ flowKey }));
  await time('flow_key=vendor:acme&status=failed', list({ flowKey: 'vendor:acme', status: 'failed' }));
  await time('flow_key=vendor:acme&queue=billing', list({ flowKey: 'vendor:acme', queue: 'billing' }));
  await deep('flow_key=vendor:acme', { flowKey: 'vendor:acme' });
  for (const code of [200, 500, 503, 410, 418]) await time(`response_status_code=${code}`, list({ responseStatusCode: code }));
  await time('response_status_code=500&status=failed', list({ responseStatusCode: 500, status: 'failed' }));
  await time('response_status_code=503&status=failed', list({ responseStatusCode: 503, status: 'failed' }));
  await time('response_status_code=500&queue=billing', list({ responseStatusCode: 500, queue: 'billing' }));
  await time('response_status_code=500&flow_key=vendor:acme', list({ responseStatusCode: 500, flowKey: 'vendor:acme' }));
  await deep('response_status_code=500', { responseStatusCode: 500 });

  // The alternative to the key rows: the project's index in list order, each request's JSON read until a page is full.
  const scan = raw.prepare(`SELECT id FROM requests WHERE project_id = ? AND created_at < ?
    AND EXISTS (SELECT 1 FROM json_each(requests.flow_keys) WHERE value = ?) ORDER BY created_at DESC, id DESC LIMIT 51`);
  for (const flowKey of ['tenant:7', 'vendor:acme', 'vendor:rare', 'vendor:absent']) {
    await time(`json_each scan instead, flow_key=${flowKey}`, () => scan.all(PROJECT, Date.now() + 1, flowKey), flowKey.startsWith('vendor:r') || flowKey.endsWith('absent') ? 3 : calls);
  }
  // The alternative to the status code index: the project's list index in order, each row's code checked.
  const walk = raw.prepare(`SELECT id FROM requests INDEXED BY requests_by_project_created WHERE project_id = ? AND created_at < ?
    AND last_status_code = ? ORDER BY created_at DESC, id DESC LIMIT 51`);
  for (const code of [500, 410, 418]) await time(`list index walk instead, response_status_code=${code}`, () => walk.all(PROJECT, Date.now() + 1, code), code === 500 ? calls : 3);
  const sizeOf = (names: string[]) =>
    (raw.prepare(`SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`).get(...names) as { bytes: number | null }).bytes;
  const size = sizeOf(['requests_by_queue', 'request_flow_keys']);
  if (size !== null) console.log(`\nrequests_by_queue + request_flow_keys: ${(size / 1e6).toFixed(1)} MB`);
  const byCode = sizeOf(['requests_by_last_status']);
  if (byCode !== null) console.log(`requests_by_last_status: ${(byCode / 1e6).toFixed(1)} MB`);
  raw.close();
} finally {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
}
