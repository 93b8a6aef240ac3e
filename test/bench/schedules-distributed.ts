/**
 * `schedules.ts --mode distributed`: the firing run on one `ferry serve` over Cassandra + Kafka (a scratch keyspace
 * and topic, dropped afterwards), with Cassandra's reads and writes per occurrence; the keyspace is read once the
 * process stopped.
 */
// First: test/support/deployment.ts reads the backend when it is loaded.
import './distributed-env.js';
import { CassandraSession } from '../../src/adapters/cassandra/session.js';
import { Api } from '../support/api-client.js';
import { backendEnv, dropDeployments } from '../support/deployment.js';
import { createProject } from '../support/ferry-process.js';
import { infra } from '../support/infra.js';
import * as dc from './distributed-cluster.js';
import { startReceiver } from './receiver.js';
import { firing, type FiringResult } from './schedules-firing.js';
import { ferryEnv, followLog, type BenchOptions } from './schedules-measure.js';
import { joinOccurrences, occurrenceKey, type Stored, type StoredOccurrence } from './schedules-occurrences.js';

/** Every request of an occurrence, occurrence record and schedule outcome in the keyspace. */
async function readKeyspace(keyspace: string): Promise<Stored> {
  const session = await CassandraSession.connect({ ...infra.cassandra.connection(keyspace), replication: '' });
  try {
    const all = async (query: string) => {
      const rows: Array<Record<string, unknown>> = [];
      let pageState: string | undefined;
      for (let page = 0; page < 10_000; page++) {
        const rs = await session.client.execute(query, [], { prepare: true, fetchSize: 2000, ...(pageState ? { pageState } : {}) });
        rows.push(...(rs.rows as unknown as Array<Record<string, unknown>>));
        pageState = rs.pageState;
        if (!pageState) break;
      }
      return rows;
    };
    // One row per attempt (or one without attempt columns): the request's own columns are static.
    const byId = new Map<string, Omit<StoredOccurrence, 'at' | 'firedAt'>>();
    const rows = await all(`SELECT id, attempt_number, schedule_id, created_at, source, status, scheduled_at, started_at, attempt_started_at FROM ${keyspace}.requests`);
    for (const r of rows) {
      if (r['source'] !== 'recurring') continue;
      const id = String(r['id']);
      const entry = byId.get(id) ?? {
        requestId: id,
        scheduleId: (r['schedule_id'] as string | null) ?? null,
        createdAt: Number(r['created_at']),
        status: String(r['status']),
        scheduledAt: r['scheduled_at'] == null ? null : Number(r['scheduled_at']),
        startedAt: r['started_at'] == null ? null : Number(r['started_at']),
        firstAttemptAt: null,
      };
      if (Number(r['attempt_number']) === 1 && r['attempt_started_at'] != null) entry.firstAttemptAt = Number(r['attempt_started_at']);
      byId.set(id, entry);
    }
    const requests = [...byId.values()];
    const keys = (await all(`SELECT project_id, key, outcome, claimed_at FROM ${keyspace}.idempotency_keys`)).flatMap(
      (k) =>
        occurrenceKey(String(k['project_id']), String(k['key']), (k['outcome'] as string | null) ?? null, k['claimed_at'] == null ? null : Number(k['claimed_at'])) ??
        [],
    );
    const outcomes = new Map<string, number>();
    for (const s of await all(`SELECT last_run_outcome FROM ${keyspace}.schedules`)) {
      const o = (s['last_run_outcome'] as string | null) ?? 'none';
      outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
    }
    return { ...joinOccurrences(requests, keys), schedules: outcomes };
  } finally {
    await session.close();
  }
}

export async function distributed(opts: BenchOptions): Promise<FiringResult> {
  await dc.assertInfra();
  const dest = await startReceiver();
  const storageMeter = await dc.StorageMeter.open();
  const cluster = await dc.startCluster(1, ferryEnv(dest.certFile, opts));
  let stopped = false;
  try {
    const coverageMs = await cluster.waitForCoverage();
    console.log(`one process on Cassandra + Kafka, shards covered ${coverageMs} ms after start`);
    const ferry = cluster.processes[0]!.ferry;
    const log = followLog(ferry);
    const { apiKey } = await createProject(cluster.dataDir, {
      name: 'b',
      scheduleAllowance: Math.max(20_000, opts.scheduleCount),
      monthlyAllowance: 100_000_000,
    });
    const keyspace = backendEnv(cluster.dataDir).FERRY_CASSANDRA_KEYSPACE!;
    return await firing(
      {
        api: new Api(ferry.baseUrl, apiKey),
        dest,
        ferry,
        log,
        meter: () => dc.meterCluster(cluster),
        storage: () => storageMeter.start(keyspace),
        async stopAndRead() {
          stopped = true;
          await cluster.stop();
          return readKeyspace(keyspace);
        },
      },
      opts,
    );
  } finally {
    if (!stopped) await cluster.stop();
    await dest.close();
    await storageMeter.close();
    await dropDeployments();
  }
}
