import type { Clock } from '../../domain/clock.js';
import { core } from './schema/001-core.js';
import { requests } from './schema/002-requests.js';
import { idempotencyPlans } from './schema/003-idempotency-plans.js';
import { schedules } from './schema/004-schedules.js';
import { cancelAsked } from './schema/005-cancel-asked.js';
import { listSchedule } from './schema/006-list-schedule.js';
import { keyLastUse } from './schema/007-key-last-use.js';
import { previousRun } from './schema/008-previous-run.js';
import { flowControl } from './schema/009-flow-control.js';
import { budgetStates } from './schema/010-budget-states.js';
import { attemptResponses } from './schema/011-attempt-responses.js';
import { listQueueFlowKeys } from './schema/012-list-queue-flow-keys.js';
import { callbacks } from './schema/013-callbacks.js';
import { bulkActions } from './schema/014-bulk-actions.js';
import { stats } from './schema/015-stats.js';
import { listLastStatusCode } from './schema/016-list-last-status-code.js';
import { listIndexes } from './schema/017-list-indexes.js';
import { schedulePolicy } from './schema/018-schedule-policy.js';
import type { Migration } from './schema/migration.js';
import { millis, type CassandraSession } from './session.js';

/**
 * Every schema version, in order. Released entries never change; a change of schema is a new entry. Versions may
 * leave a gap (one numbered while another was under way); each is applied and checked on its own.
 */
export const MIGRATIONS: readonly Migration[] = [
  core,
  requests,
  idempotencyPlans,
  schedules,
  cancelAsked,
  listSchedule,
  keyLastUse,
  previousRun,
  flowControl,
  budgetStates,
  attemptResponses,
  listQueueFlowKeys,
  callbacks,
  bulkActions,
  stats,
  listLastStatusCode,
  listIndexes,
  schedulePolicy,
];

const KEYSPACE_NAME = /^[a-z][a-z0-9_]{0,47}$/;

export function checkKeyspaceName(keyspace: string): void {
  // The keyspace is spliced into statements (CQL cannot bind identifiers), so only plain names are accepted.
  if (!KEYSPACE_NAME.test(keyspace)) {
    throw new Error(`Keyspace "${keyspace}" must be lowercase letters, digits and underscores, starting with a letter.`);
  }
}

/**
 * Creates the keyspace when missing and applies every migration not yet recorded. Statements are idempotent and
 * a version is recorded only after all of its statements ran, so an interrupted run is finished by the next one,
 * and processes that migrate at once end on the same schema.
 */
export async function migrate(session: CassandraSession, replication: string, clock: Clock, migrations = MIGRATIONS): Promise<number> {
  const ks = session.keyspace;
  checkKeyspaceName(ks);
  await session.execute(`CREATE KEYSPACE IF NOT EXISTS ${ks} WITH replication = ${replication}`, [], 'creating the keyspace');
  await session.execute(
    `CREATE TABLE IF NOT EXISTS ${ks}.schema_migrations (version int PRIMARY KEY, name text, applied_at bigint)`,
    [],
    'creating the migrations table',
  );
  const applied = await appliedVersions(session);
  const newest = Math.max(0, ...applied);
  const known = Math.max(0, ...migrations.map((m) => m.version));
  if (newest > known) {
    throw new Error(`Keyspace ${ks} has schema version ${newest}, newer than this build knows (${known}).`);
  }
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    for (const statement of m.statements) {
      await session.execute(qualify(statement, ks), [], `migration ${m.version} (${m.name})`);
    }
    await session.execute(
      `INSERT INTO ${ks}.schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
      [m.version, m.name, clock.now()],
      `recording migration ${m.version}`,
    );
  }
  return known;
}

/** Fails with a clear message unless the keyspace holds exactly the schema this build expects. */
export async function assertMigrated(session: CassandraSession, migrations = MIGRATIONS): Promise<void> {
  const ks = session.keyspace;
  checkKeyspaceName(ks);
  let applied: Set<number>;
  try {
    applied = await appliedVersions(session);
  } catch (err) {
    throw new Error(`Keyspace ${ks} has no Ferry schema; run \`ferry migrate\` first.`, { cause: err });
  }
  const missing = migrations.filter((m) => !applied.has(m.version)).map((m) => m.version);
  if (missing.length > 0) throw new Error(`Keyspace ${ks} lacks schema versions ${missing.join(', ')}; run \`ferry migrate\`.`);
}

async function appliedVersions(session: CassandraSession): Promise<Set<number>> {
  const rs = await session.read(`SELECT version, applied_at FROM ${session.keyspace}.schema_migrations`, [], 'reading schema versions');
  return new Set(rs.rows.filter((r) => millis(r['applied_at']) !== null).map((r) => r['version'] as number));
}

/** Statements name tables without a keyspace; the runner places them in the deployment's keyspace. */
function qualify(statement: string, ks: string): string {
  return statement.replace(/^(\s*(?:CREATE TABLE IF NOT EXISTS|ALTER TABLE)\s+)([a-z_]+)/i, `$1${ks}.$2`);
}
