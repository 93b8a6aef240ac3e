/**
 * `schedules.ts --mode embedded`: the firing run on one embedded `ferry serve` (SQLite), whose file is read
 * read-only once the process stopped.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Api } from '../support/api-client.js';
import { createProject, startFerry } from '../support/ferry-process.js';
import { cpuMeter } from './cpu-meter.js';
import { startReceiver } from './receiver.js';
import { firing, type FiringResult } from './schedules-firing.js';
import { ferryEnv, followLog, type BenchOptions } from './schedules-measure.js';
import { joinOccurrences, occurrenceKey, type Stored } from './schedules-occurrences.js';

/** The embedded file, opened read-only after the process stopped. */
function readEmbedded(dataDir: string): Stored {
  const db = new Database(join(dataDir, 'ferry.db'), { readonly: true, fileMustExist: true });
  try {
    const requests = (
      db
        .prepare(
          `SELECT r.id, r.schedule_id, r.created_at, r.status, r.scheduled_at, r.started_at, a.started_at AS attempt_started_at FROM requests r
             LEFT JOIN attempts a ON a.request_id = r.id AND a.attempt_number = 1 WHERE r.source = 'recurring'`,
        )
        .all() as Array<{
        id: string;
        schedule_id: string | null;
        created_at: number;
        status: string;
        scheduled_at: number | null;
        started_at: number | null;
        attempt_started_at: number | null;
      }>
    ).map((r) => ({
      requestId: r.id,
      scheduleId: r.schedule_id,
      createdAt: r.created_at,
      status: r.status,
      scheduledAt: r.scheduled_at,
      startedAt: r.started_at,
      firstAttemptAt: r.attempt_started_at,
    }));
    const keys = (
      db.prepare("SELECT project_id, key, outcome, claimed_at FROM idempotency WHERE key LIKE 'occurrence:%'").all() as Array<{
        project_id: string;
        key: string;
        outcome: string | null;
        claimed_at: number;
      }>
    ).flatMap((k) => occurrenceKey(k.project_id, k.key, k.outcome, k.claimed_at) ?? []);
    const outcomes = db.prepare("SELECT coalesce(last_run_outcome, 'none') AS o, count(*) AS n FROM schedules GROUP BY o").all() as Array<{ o: string; n: number }>;
    return { ...joinOccurrences(requests, keys), schedules: new Map(outcomes.map((r) => [r.o, r.n])) };
  } finally {
    db.close();
  }
}

export async function embedded(opts: BenchOptions): Promise<FiringResult> {
  const dest = await startReceiver();
  const ferry = await startFerry({ env: ferryEnv(dest.certFile, opts) });
  let stopped = false;
  try {
    const log = followLog(ferry);
    const { apiKey } = await createProject(ferry.dataDir, {
      name: 'b',
      scheduleAllowance: Math.max(20_000, opts.scheduleCount),
      monthlyAllowance: 100_000_000,
    });
    return await firing(
      {
        api: new Api(ferry.baseUrl, apiKey),
        dest,
        ferry,
        log,
        meter: () => cpuMeter([['ferry', ferry.child.pid], ['bench', process.pid]]),
        async stopAndRead() {
          stopped = true;
          const code = await ferry.stop();
          // For slicing a --cpu-prof profile of the server by wall-clock time: its endTime is this instant.
          console.log(`  ferry exited with ${code} at ${Date.now()} (epoch ms)`);
          return readEmbedded(ferry.dataDir);
        },
      },
      opts,
    );
  } finally {
    if (!stopped) await ferry.stop();
    await dest.close();
  }
}
