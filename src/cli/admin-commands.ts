import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { PROJECT_DEFAULTS, type ProjectAdmin } from '../app/project-admin.js';
import { loadConfig, type Config } from '../config/config.js';
import { backupStorage } from '../runtime/backup.js';
import { embeddedDatabaseFile, migrateStorage, openBackend, projectAdmin } from '../runtime/service.js';
import type { Command } from './args.js';
import { CliFailure, note, printJson } from './output.js';

/** Says which storage a command works on, so a command run in the wrong directory is noticed at once. */
function announceStorage(config: Config): void {
  const d = config.distributed;
  note(
    d === null
      ? `using data directory ${config.dataDir} (FERRY_DATA_DIR)`
      : `using Cassandra keyspace ${d.cassandra.keyspace} at ${d.cassandra.contactPoints.join(',')} (FERRY_CASSANDRA_KEYSPACE)`,
  );
}

/**
 * Runs `work` on the existing storage. An embedded database that is not there is an error, not a new empty one:
 * a project created in the wrong directory would be invisible to the server that runs elsewhere.
 */
async function withAdmin(work: (admin: ProjectAdmin) => Promise<void>): Promise<number> {
  const config = loadConfig();
  announceStorage(config);
  if (config.distributed === null && !existsSync(embeddedDatabaseFile(config))) {
    throw new CliFailure(
      `no Ferry database in ${config.dataDir}; point FERRY_DATA_DIR at the directory 'ferry serve' uses, or create one there with 'ferry migrate'`,
    );
  }
  const backend = await openBackend(config, { create: false });
  try {
    await work(projectAdmin(backend));
    return 0;
  } finally {
    await backend.close();
  }
}

const migrate: Command = {
  words: ['migrate'],
  summary: 'create or upgrade the storage schema',
  details: 'Distributed, it also creates the Kafka work topic. Safe to run again, and beside a running server.',
  options: [],
  async run() {
    const config = loadConfig();
    announceStorage(config);
    await migrateStorage(config);
    printJson({ migrated: true });
    return 0;
  },
};

const projectCreate: Command = {
  words: ['project', 'create'],
  summary: 'create a project and print its first API key',
  details: 'Prints the project ID, its first API key and its signing secret as JSON; the secrets are shown this once.',
  options: [
    { name: 'name', kind: 'string', value: 'NAME', help: "the project's name", required: true },
    { name: 'monthly-allowance', kind: 'count', value: 'N', help: `requests accepted a month (${PROJECT_DEFAULTS.monthlyAllowance})` },
    { name: 'schedule-allowance', kind: 'count', value: 'N', help: `schedules at once (${PROJECT_DEFAULTS.scheduleAllowance})` },
    { name: 'retention-days', kind: 'count', value: 'N', help: `days finished requests are kept (${PROJECT_DEFAULTS.retentionDays})` },
  ],
  run: (args) =>
    withAdmin(async (admin) => {
      const { project, apiKey, signingSecret } = await admin.createProject({
        name: args.required('name'),
        monthlyAllowance: args.count('monthly-allowance'),
        scheduleAllowance: args.count('schedule-allowance'),
        retentionDays: args.count('retention-days'),
      });
      printJson({
        project_id: project.id,
        name: project.name,
        monthly_allowance: project.monthlyAllowance,
        schedule_allowance: project.scheduleAllowance,
        retention_days: project.retentionDays,
        api_key: apiKey,
        signing_secret: signingSecret,
      });
    }),
};

const keyCreate: Command = {
  words: ['key', 'create'],
  summary: 'issue another API key for a project',
  details: 'For rotating keys without downtime: issue a new key, move clients to it, revoke the old one.',
  options: [{ name: 'project', kind: 'string', value: 'PROJECT_ID', help: 'the project (prj_…)', required: true }],
  run: (args) =>
    withAdmin(async (admin) => {
      const projectId = args.required('project');
      printJson({ project_id: projectId, api_key: await admin.createKey(projectId) });
    }),
};

const keyRevoke: Command = {
  words: ['key', 'revoke'],
  summary: 'revoke an API key',
  details: 'Servers stop accepting it within FERRY_AUTH_CACHE_MS.',
  options: [{ name: 'key', kind: 'string', value: 'KEY', help: 'the API key (fry_…) or its key ID', required: true }],
  run: (args) => withAdmin(async (admin) => printJson({ revoked_key_id: await admin.revokeKey(args.required('key')) })),
};

const signingSecretRotate: Command = {
  words: ['signing-secret', 'rotate'],
  summary: 'make a new delivery signing secret current',
  details: 'Prints the new secret; the previous ones keep signing for --overlap-hours, so receivers can switch over.',
  options: [
    { name: 'project', kind: 'string', value: 'PROJECT_ID', help: 'the project (prj_…)', required: true },
    { name: 'overlap-hours', kind: 'count', value: 'N', help: 'hours the previous secrets keep signing (24)' },
  ],
  run: (args) =>
    withAdmin(async (admin) => {
      const projectId = args.required('project');
      const hours = args.count('overlap-hours') ?? 24;
      const secret = await admin.rotateSigningSecret(projectId, hours * 3_600_000);
      printJson({ project_id: projectId, signing_secret: secret, previous_secrets_sign_for_hours: hours });
    }),
};

const backup: Command = {
  words: ['backup'],
  summary: 'copy the embedded database, also while the server runs',
  details:
    'Writes a consistent copy (SQLite online backup) to a new file; restore by stopping the server and putting the copy ' +
    'in place as ferry.db in FERRY_DATA_DIR. Never overwrites a file.',
  options: [{ name: 'to', kind: 'string', value: 'FILE', help: 'the file to write (must not exist)', required: true }],
  async run(args) {
    const config = loadConfig();
    announceStorage(config);
    if (config.distributed === null && !existsSync(embeddedDatabaseFile(config))) {
      throw new CliFailure(`no Ferry database in ${config.dataDir}; point FERRY_DATA_DIR at the directory 'ferry serve' uses`);
    }
    const destination = resolve(args.required('to'));
    const { pages } = await backupStorage(config, destination).catch((err: unknown) => {
      throw new CliFailure(err instanceof Error ? err.message : String(err));
    });
    printJson({ backup: destination, pages });
    return 0;
  },
};

export const ADMIN_COMMANDS: readonly Command[] = [migrate, projectCreate, keyCreate, keyRevoke, signingSecretRotate, backup];
