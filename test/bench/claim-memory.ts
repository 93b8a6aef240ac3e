// Memory held per claimed request by the Cassandra request store and the delivery engine together: N requests
// claimed by a process that did not accept them, measured after a full collection while the claims are out (the
// attempt in flight), once sent (the outcome not written yet), and once every outcome is written (what stays behind).
// Bodies are 1 KiB, held outside the JavaScript heap, and reported apart.
// Usage: node --expose-gc --import tsx test/bench/claim-memory.ts [--requests N] [--rounds R]
// Needs the test Cassandra (`npm run infra:up`); each run migrates a keyspace of its own and drops it after.
import { parseArgs } from 'node:util';
import { openCassandraBackend, type CassandraBackend } from '../../src/adapters/cassandra/backend.js';
import type { StoredRequest } from '../../src/domain/request.js';
import type { Settlement } from '../../src/domain/request-lifecycle/index.js';
import type { Claim } from '../../src/ports/requests.js';
import { aRequest } from '../contract/suite/harness.js';
import { holdingEveryShard } from '../contract/suite/scratch-cassandra.js';
import { infra } from '../support/infra.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '3' } } });
const N = Number(values.requests);
const ROUNDS = Number(values.rounds);
const SHARDS = 12;
const LEASE_MS = 6 * 60_000;
if (typeof globalThis.gc !== 'function') throw new Error('Run with node --expose-gc.');
const gc = globalThis.gc;

const body = new TextEncoder().encode(JSON.stringify({ event: 'invoice.paid', amount: 4200, note: 'x'.repeat(950) }));

/** A request as the bench of accept stores it: a 1 KiB JSON body, two headers, metadata, due now. */
function request(now: number): StoredRequest {
  return aRequest({
    projectId: 'prj_bench',
    url: 'https://hooks.example.com/billing',
    headers: [['Authorization', 'Bearer abc'], ['X-Event', 'invoice.paid']],
    body: new Uint8Array(body),
    contentType: 'application/json',
    metadata: { customer: 'cus_123' },
    dueAt: now,
    createdAt: now,
    updatedAt: now,
  });
}

/** The JavaScript heap, and the buffers outside it (bodies), after a full collection. */
/** A first attempt's success at `at`, as the engine settles it. */
function succeeded(id: string, at: number): Settlement {
  const attempt = { requestId: id, attemptNumber: 1, status: 'succeeded', responseStatusCode: 200, errorMessage: null, durationMs: 5, startedAt: at, completedAt: at, retry: null, finalReason: null, response: null } as const;
  return { attempt, change: { set: { status: 'succeeded', attemptCount: 1, startedAt: at, completedAt: at, updatedAt: at, dueAt: null } }, callback: null };
}

function heap(): [number, number] {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return [heapUsed, arrayBuffers];
}


async function measure(keyspace: string, claimStoredAfterMs: number, writer: CassandraBackend): Promise<number[]> {
  const now = Date.now();
  for (let i = 0; i < N; i += 100) await writer.requests.insertMany(Array.from({ length: Math.min(100, N - i) }, () => request(now)));
  // A process of its own: it did not accept the requests, so it remembers none of them before claiming.
  const claimer = await openCassandraBackend({ ...infra.cassandra.connection(keyspace), shardCount: SHARDS, claimStoredAfterMs, epochs: holdingEveryShard(2) });
  try {
    // Warm: statements prepared, floors read, before the baseline.
    await claimer.requests.nextDueAt();
    const before = heap();
    let claimed: Claim[] = [];
    while (claimed.length < N) {
      const got = await claimer.requests.claimDue(Date.now(), 500, Date.now() + LEASE_MS);
      if (got.length === 0) throw new Error(`Claimed ${claimed.length} of ${N}.`);
      claimed.push(...got);
    }
    const inFlight = heap();
    // What the engine keeps once the attempt is sent, while the outcome awaits its write.
    claimed = claimed.map((c) => c.sent());
    const sent = heap();
    const count = claimed.length;
    const at = Date.now();
    for (let i = 0; i < count; i += 100) {
      await Promise.all(claimed.slice(i, i + 100).map((c) => claimer.requests.recordAttempt(c, succeeded(c.request.id, at))));
    }
    claimed = [];
    const recorded = heap();
    return [inFlight, sent, recorded].flatMap((h) => [(h[0] - before[0]) / count, (h[1] - before[1]) / count]);
  } finally {
    await claimer.close();
  }
}

const keyspace = `ferry_bench_claims_${process.pid}`;
const writer = await openCassandraBackend({ ...infra.cassandra.connection(keyspace), shardCount: SHARDS, migrate: true });
try {
  for (const [label, storeAfter] of [
    ['held claims (the default)', 10 * 60_000],
    ['claims stored at once', 0],
  ] as const) {
    const rounds: number[][] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await measure(keyspace, storeAfter, writer));
    const show = (i: number) => `${rounds.map((x) => Math.round(x[2 * i]!)).join(' / ')}  (+ buffers ${rounds.map((x) => Math.round(x[2 * i + 1]!)).join(' / ')})`;
    console.log(`${label}, ${N} claimed requests, bytes of heap per claimed request, and of buffers outside it (${ROUNDS} rounds):`);
    console.log(`  attempt in flight:           ${show(0)}`);
    console.log(`  sent, outcome not written:   ${show(1)}`);
    console.log(`  outcomes written:            ${show(2)}`);
  }
} finally {
  await writer.session.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`, [], 'dropping the bench keyspace');
  await writer.close();
}
