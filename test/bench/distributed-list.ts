/**
 * List latency on Cassandra over a large project: inserts `--requests` requests (default 1,000,000) into one
 * project directly through the request store (`insertMany`, 100 per call, `--concurrency` calls at once), spread
 * evenly over `--days` UTC days of creation time and mostly terminal; then measures GET /requests through one
 * API process, one call at a time:
 *  - the first page (`limit=50`), with a status filter (`failed`, about 7% of the requests), with a method filter
 *    (`PUT`, about 6%), and 20 pages deep by cursor;
 *  - the filters of the list entries: `queue=billing` (1%), `flow_key=vendor:acme` (2%), `response_status_code=500`
 *    (the last answer of most failures, about 6%), the same with `status=failed`, and `response_status_code=410`
 *    (0.01%);
 *  - a filter that matches nothing (`status=delivering`, a URL search, and a status code none got), once each with a
 *    deadline: these walk the project's whole history.
 * CPU use of Cassandra, the API process and this process is measured over each part.
 *
 *   bash test/infra/infra.sh up && npm run build && npx tsx test/bench/distributed-list.ts \
 *     [--requests 1000000] [--days 10] [--concurrency 8] [--body-bytes 200] [--calls 200] [--pages 20] \
 *     [--worst-deadline-ms 120000] [--keep true] [--data-dir <dir kept by an earlier --keep run>]
 *
 * `--keep true` leaves the deployment (and its data directory) in place and prints the directory;
 * `--data-dir` measures that deployment again without inserting, and drops it afterwards unless kept again.
 */
import './distributed-env.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { newRequestId } from '../../src/domain/ids.js';
import type { HttpMethod, RequestStatus, StoredRequest } from '../../src/domain/request.js';
import { Api } from '../support/api-client.js';
import { backendEnv, dropDeployments, openTestBackend } from '../support/deployment.js';
import { createProject, newDataDir, startFerry } from '../support/ferry-process.js';
import { coresOf, cpuMeter, formatCpu, type CpuUse } from './cpu-meter.js';
import { infra } from '../support/infra.js';
import {
  assertInfra,
  benchSession,
  infraPids,
  parseArgs,
  percentile,
  printTable,
  round,
  sleep,
  StorageMeter,
  formatCeiling,
  storageCeiling,
} from './distributed-cluster.js';

const args = parseArgs();
const total = Number(args.get('requests') ?? 1_000_000);
const days = Number(args.get('days') ?? 10);
const concurrency = Number(args.get('concurrency') ?? 8);
const bodyBytes = Number(args.get('body-bytes') ?? 200);
const calls = Number(args.get('calls') ?? 200);
const pages = Number(args.get('pages') ?? 20);
const worstDeadlineMs = Number(args.get('worst-deadline-ms') ?? 120_000);
const keep = args.get('keep') === 'true';
const reuse = args.get('data-dir');

const DAY_MS = 86_400_000;
const BATCH = 100;

/** Deterministic mix per index: mostly terminal, as a project's history is. */
function statusOf(i: number): RequestStatus {
  const r = (i * 7919) % 100;
  if (r < 85) return 'succeeded';
  if (r < 92) return 'failed';
  if (r < 95) return 'cancelled';
  return 'scheduled';
}

function methodOf(i: number): HttpMethod {
  const r = (i * 104_729) % 100;
  if (r < 80) return 'POST';
  if (r < 88) return 'GET';
  if (r < 94) return 'PUT';
  if (r < 98) return 'PATCH';
  return 'DELETE';
}

function storedRequest(projectId: string, i: number, firstCreatedAt: number, spacingMs: number, body: Uint8Array | null): StoredRequest {
  const createdAt = Math.floor(firstCreatedAt + i * spacingMs);
  const status = statusOf(i);
  const method = methodOf(i);
  const terminal = status !== 'scheduled';
  const attempts = status === 'failed' ? 3 : status === 'succeeded' ? 1 : 0;
  const scheduledAt = terminal ? null : Date.now() + DAY_MS + (i % 1000) * 60_000;
  return {
    id: newRequestId(createdAt),
    projectId,
    url: `https://hooks.customer-${i % 997}.example.com/events/${i % 13}`,
    method,
    headers: [['x-trace', `t-${i}`]],
    callbacks: null,
    callbackForRequestId: null,
    callbackRequestIds: [],
    body: method === 'GET' || method === 'DELETE' ? null : body,
    contentType: method === 'GET' || method === 'DELETE' || body === null ? null : 'application/json',
    maxAttempts: 3,
    timeoutSeconds: 30,
    queue: (i * 7919) % 10_000 < 100 ? 'billing' : 'default',
    flowKeys: flowKeysOf(i),
    metadata: {},
    waitingFor: null,
    source: 'api',
    replayedFromRequestId: null,
    scheduleId: null,
    status,
    scheduledAt,
    dueAt: terminal ? null : scheduledAt,
    attemptCount: attempts,
    createdAt,
    updatedAt: createdAt + 500,
    startedAt: attempts > 0 ? createdAt + 20 : null,
    completedAt: status === 'succeeded' || status === 'failed' ? createdAt + 500 : null,
    cancelledAt: status === 'cancelled' ? createdAt + 100 : null,
    cancelRequestedAt: null,
    lastStatusCode: status === 'succeeded' ? 200 : status === 'failed' ? (Math.floor(i / 100) % 700 === 3 ? 410 : i % 8 === 0 ? 503 : 500) : null,
    version: 1 + 2 * attempts + (status === 'cancelled' ? 1 : 0),
  };
}

/** Every request names one of 1,000 tenants; 2% also `vendor:acme`, on a mix of their own. */
function flowKeysOf(i: number): string[] {
  const k = (i * 2_654_435_761) % 1_000_003;
  return [`tenant:${i % 1000}`, ...(k % 50 === 7 ? ['vendor:acme'] : [])];
}

interface Inserted {
  count: number;
  ms: number;
  cpu: CpuUse;
  storage: string;
}

async function insertAll(dataDir: string, projectId: string): Promise<Inserted> {
  const backend = await openTestBackend(dataDir);
  const spacingMs = (days * DAY_MS) / total;
  // The newest request a little over an hour old: every one of them is well inside the 30-day retention.
  const firstCreatedAt = Date.now() - 3_600_000 - days * DAY_MS;
  const body = bodyBytes > 0 ? new Uint8Array(Buffer.from(JSON.stringify({ event: 'order.created', pad: 'x'.repeat(Math.max(0, bodyBytes - 36)) }))) : null;
  const { cassandra } = infraPids();
  const meter = cpuMeter([['cassandra', cassandra], ['bench', process.pid]]);
  const storage = await storageMeter.start(backendEnv(dataDir).FERRY_CASSANDRA_KEYSPACE!);
  const start = Date.now();
  let next = 0;
  let done = 0;
  let lastReport = start;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          const first = next;
          next += BATCH;
          // Built when taken: only `concurrency` batches exist at any time.
          const batch = Array.from({ length: Math.min(BATCH, total - first) }, (_, k) => storedRequest(projectId, first + k, firstCreatedAt, spacingMs, body));
          for (let attempt = 1; ; attempt++) {
            try {
              await backend.requests.insertMany(batch);
              break;
            } catch (err) {
              // Writing the same requests again is harmless: the same rows with the same values.
              if (attempt >= 5) throw err;
              await sleep(500 * attempt);
            }
          }
          done += batch.length;
          if (Date.now() - lastReport >= 10_000) {
            lastReport = Date.now();
            const s = (lastReport - start) / 1000;
            console.log(`  inserted ${done.toLocaleString('en')} in ${Math.round(s)} s: ${round(done / s)} requests/s`);
          }
        }
      }),
    );
  } finally {
    await backend.close();
  }
  const ms = Date.now() - start;
  return { count: done, ms, cpu: meter.stop(), storage: await storage.stop() };
}

interface ListItem {
  id: string;
  status: string;
  method: string;
  queue: string;
  flow_keys: string[];
  last_response_status_code: number | null;
}
interface ListPage {
  items: ListItem[];
  next_cursor?: string;
}

interface Measured {
  name: string;
  /** Reads per call per table, from Cassandra's metrics. */
  storage: string;
  calls: number;
  p50: number;
  p99: number;
  max: number;
  items: number;
  note: string;
  cpu: CpuUse;
}

interface CallMeter {
  stop(calls: number): Promise<{ cpu: CpuUse; storage: string }>;
}

/** CPU of Cassandra, the API process and this one, and the storage's reads per table, over some calls. */
async function callMeter(keyspace: string, ferryPid: number | undefined): Promise<CallMeter> {
  const { cassandra } = infraPids();
  const storage = await storageMeter.start(keyspace);
  const cpu = cpuMeter([['cassandra', cassandra], ['ferry', ferryPid], ['bench', process.pid]]);
  return {
    async stop(n) {
      const used = cpu.stop();
      return { cpu: used, storage: await storage.stop(n) };
    },
  };
}

async function timed(api: Api, path: string): Promise<{ ms: number; page: ListPage }> {
  const t = performance.now();
  const res = await api.call<ListPage>('GET', path);
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(res.body?.error)}`);
  return { ms, page: res.body.data };
}

function summarize(name: string, latencies: number[], items: number, note: string, used: { cpu: CpuUse; storage: string }): Measured {
  latencies.sort((a, b) => a - b);
  return { name, calls: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN, items, note, ...used };
}

async function repeated(api: Api, name: string, path: string, check: (item: ListItem) => boolean, meterOf: () => Promise<CallMeter>): Promise<Measured> {
  const latencies: number[] = [];
  let items = 0;
  let wrong = 0;
  const meter = await meterOf();
  for (let i = 0; i < calls; i++) {
    const { ms, page } = await timed(api, path);
    latencies.push(ms);
    items += page.items.length;
    wrong += page.items.filter((item) => !check(item)).length;
  }
  return summarize(name, latencies, items / calls, wrong === 0 ? '' : `${wrong} items not matching the filter`, await meter.stop(calls));
}

/** `calls` pages in walks of `pages` pages each, by cursor. */
async function paging(api: Api, meterOf: () => Promise<CallMeter>): Promise<{ all: Measured; deepest: Measured }> {
  const latencies: number[] = [];
  const deepest: number[] = [];
  const seen = new Set<string>();
  let items = 0;
  let repeats = 0;
  const meter = await meterOf();
  for (let walk = 0; walk < Math.max(1, Math.round(calls / pages)); walk++) {
    let cursor: string | undefined;
    seen.clear();
    for (let p = 0; p < pages; p++) {
      const { ms, page } = await timed(api, `/requests?limit=50${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      latencies.push(ms);
      if (p === pages - 1) deepest.push(ms);
      items += page.items.length;
      for (const item of page.items) {
        if (seen.has(item.id)) repeats++;
        seen.add(item.id);
      }
      cursor = page.next_cursor;
      if (cursor === undefined) break;
    }
  }
  const used = await meter.stop(latencies.length);
  const note = repeats === 0 ? '' : `${repeats} items repeated across pages`;
  return {
    all: summarize(`${pages} pages deep by cursor (every page)`, latencies, items / latencies.length, note, used),
    deepest: summarize(`page ${pages} alone`, deepest, 50, '', used),
  };
}

/**
 * One call that has to walk the whole history, on a process of its own: the server goes on after the client gave
 * up at the deadline, so that process is killed afterwards rather than left to slow what follows.
 */
async function once(dataDir: string, apiKey: string, name: string, path: string): Promise<Measured> {
  const ferry = await startFerry({ dataDir, env: { FERRY_ROLES: 'api' } });
  try {
    const api = new Api(ferry.baseUrl, apiKey);
    for (let i = 0; i < 5; i++) await timed(api, '/requests?limit=50');
    const meter = await callMeter(backendEnv(dataDir).FERRY_CASSANDRA_KEYSPACE!, ferry.child.pid);
    const t = performance.now();
    const res = await Promise.race([api.call<ListPage>('GET', path), sleep(worstDeadlineMs).then(() => null)]);
    const ms = performance.now() - t;
    const used = await meter.stop(1);
    if (res === null) return { name, calls: 1, p50: NaN, p99: NaN, max: NaN, items: NaN, note: `no answer within ${worstDeadlineMs} ms`, ...used };
    return { name, calls: 1, p50: ms, p99: ms, max: ms, items: res.status === 200 ? res.body.data.items.length : NaN, note: `status ${res.status}`, ...used };
  } finally {
    await ferry.kill();
  }
}

/** Drops a deployment this process did not create (one kept by an earlier run). */
async function dropKept(dataDir: string): Promise<void> {
  const env = backendEnv(dataDir);
  const session = await benchSession();
  try {
    await session.execute(`DROP KEYSPACE IF EXISTS ${env.FERRY_CASSANDRA_KEYSPACE!}`, [], 'dropping a bench keyspace');
  } finally {
    await session.close();
  }
  const admin = new Kafka({ brokers: [...infra.kafka.brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [env.FERRY_KAFKA_TOPIC!] });
  } finally {
    await admin.disconnect();
  }
}

await assertInfra();
console.log(formatCeiling(await storageCeiling()));
const storageMeter = await StorageMeter.open();
const dataDir = reuse ?? newDataDir();
const infoFile = join(dataDir, 'bench-list.json');
const results: Measured[] = [];
const report = (m: Measured) => {
  results.push(m);
  const figures = Number.isNaN(m.p50) ? '' : `p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, max ${m.max.toFixed(1)} ms, items/call ${m.items} `;
  console.log(`  ${m.name}: ${figures}${m.note}`);
  console.log(`    cpu: ${formatCpu(m.cpu)}`);
  console.log(`    storage: ${m.storage}`);
};
let info: { projectId: string; apiKey: string; count: number; days: number } | undefined;
let inserted: Inserted | null = null;
try {
  if (reuse !== undefined && existsSync(infoFile)) {
    info = JSON.parse(readFileSync(infoFile, 'utf8')) as NonNullable<typeof info>;
    console.log(`reusing ${info.count.toLocaleString('en')} requests over ${info.days} days in ${dataDir}`);
  } else {
    const { projectId, apiKey } = await createProject(dataDir, { name: 'list-bench' });
    console.log(`inserting ${total.toLocaleString('en')} requests over ${days} days, ${BATCH} per insertMany, ${concurrency} at once, bodies of ${bodyBytes} bytes`);
    inserted = await insertAll(dataDir, projectId);
    info = { projectId, apiKey, count: inserted.count, days };
    writeFileSync(infoFile, JSON.stringify(info));
    console.log(`  inserted ${inserted.count.toLocaleString('en')} in ${Math.round(inserted.ms / 1000)} s: ${round((inserted.count / inserted.ms) * 1000)} requests/s`);
    console.log(`    cpu: ${formatCpu(inserted.cpu)}`);
    console.log(`    storage: ${inserted.storage}`);
  }
  // The API alone: nothing in this project is due, and delivery would only add noise.
  const ferry = await startFerry({ dataDir, env: { FERRY_ROLES: 'api' } });
  try {
    const api = new Api(ferry.baseUrl, info.apiKey);
    const meterOf = () => callMeter(backendEnv(dataDir).FERRY_CASSANDRA_KEYSPACE!, ferry.child.pid);
    // Warm up the JIT, the key cache and the prepared statements.
    for (let i = 0; i < 20; i++) await timed(api, '/requests?limit=50&status=failed');
    report(await repeated(api, 'limit=50', '/requests?limit=50', () => true, meterOf));
    report(await repeated(api, 'limit=50, status=failed', '/requests?limit=50&status=failed', (x) => x.status === 'failed', meterOf));
    report(await repeated(api, 'limit=50, method=PUT', '/requests?limit=50&method=PUT', (x) => x.method === 'PUT', meterOf));
    report(await repeated(api, 'limit=50, queue=billing', '/requests?limit=50&queue=billing', (x) => x.queue === 'billing', meterOf));
    report(await repeated(api, 'limit=50, flow_key=vendor:acme', '/requests?limit=50&flow_key=vendor:acme', (x) => x.flow_keys.includes('vendor:acme'), meterOf));
    const code = (c: number) => (x: ListItem) => x.last_response_status_code === c;
    report(await repeated(api, 'limit=50, response_status_code=500', '/requests?limit=50&response_status_code=500', code(500), meterOf));
    report(await repeated(api, 'limit=50, response_status_code=500&status=failed', '/requests?limit=50&response_status_code=500&status=failed', code(500), meterOf));
    report(await repeated(api, 'limit=50, response_status_code=410 (0.01%)', '/requests?limit=50&response_status_code=410', code(410), meterOf));
    const deep = await paging(api, meterOf);
    report(deep.all);
    report(deep.deepest);
  } finally {
    await ferry.stop();
  }
  if (worstDeadlineMs > 0) {
    report(await once(dataDir, info.apiKey, 'status=delivering (matches none)', '/requests?limit=50&status=delivering'));
    report(await once(dataDir, info.apiKey, 'search=no-such-host (matches none)', '/requests?limit=50&search=no-such-host'));
    report(await once(dataDir, info.apiKey, 'response_status_code=418 (matches none)', '/requests?limit=50&response_status_code=418'));
  }
} finally {
  await storageMeter.close();
  if (keep) console.log(`kept: --data-dir ${dataDir}`);
  else if (reuse !== undefined) await dropKept(dataDir);
  else await dropDeployments();
}

if (inserted !== null) {
  printTable(
    'Insert: CassandraRequestStore.insertMany, 100 requests per call',
    ['requests', 'days', 'concurrency', 'body bytes', 'seconds', 'requests/s', 'cassandra cores', 'bench cores', 'machine'],
    [[inserted.count.toLocaleString('en'), days, concurrency, bodyBytes, Math.round(inserted.ms / 1000), round((inserted.count / inserted.ms) * 1000),
      coresOf(inserted.cpu, 'cassandra').toFixed(2), coresOf(inserted.cpu, 'bench').toFixed(2), `${Math.round(inserted.cpu.machine * 100)}%`]],
  );
}
if (info !== undefined) printTable(
  `GET /requests over ${info.count.toLocaleString('en')} requests in one project (${info.days} days), one call at a time`,
  ['call', 'calls', 'p50 ms', 'p99 ms', 'max ms', 'items/call', 'cassandra cores', 'ferry cores', 'note'],
  results.map((m) => [m.name, m.calls, m.p50.toFixed(1), m.p99.toFixed(1), m.max.toFixed(1), Number.isNaN(m.items) ? '–' : m.items, coresOf(m.cpu, 'cassandra').toFixed(2), coresOf(m.cpu, 'ferry').toFixed(2), m.note]),
);
