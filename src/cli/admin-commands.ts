import { resolve } from 'node:path';
import { loadConfig } from '../config/config.js';
import { backupStorage } from '../runtime/backup.js';
import { migrateStorage } from '../runtime/storage.js';
import type { Command } from './args.js';
import { KEY_COMMANDS } from './key-commands.js';
import { CliFailure, printJson } from './output.js';
import { PROJECT_COMMANDS } from './project-commands.js';
import { announceStorage, requireEmbeddedDatabase, withAdmin } from './storage-access.js';

/** How long previous signing secrets may keep signing: a year covers any receiver's switch-over. */
const MAX_OVERLAP_HOURS = 8_760;

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

const signingSecretRotate: Command = {
  words: ['signing-secret', 'rotate'],
  summary: 'make a new delivery signing secret current',
  details: 'Prints the new secret; the previous ones keep signing for --overlap-hours, so receivers can switch over.',
  options: [
    { name: 'project', kind: 'string', value: 'PROJECT_ID', help: 'the project (prj_…)', required: true },
    { name: 'overlap-hours', kind: 'count', value: 'N', help: 'hours the previous secrets keep signing (default 24)', max: MAX_OVERLAP_HOURS },
  ],
  run: (args) =>
    withAdmin(async ({ admin }) => {
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
    requireEmbeddedDatabase(config, "point FERRY_DATA_DIR at the directory 'ferry serve' uses");
    const destination = resolve(args.required('to'));
    const { pages } = await backupStorage(config, destination).catch((err: unknown) => {
      throw new CliFailure(err instanceof Error ? err.message : String(err));
    });
    printJson({ backup: destination, pages });
    return 0;
  },
};

export const ADMIN_COMMANDS: readonly Command[] = [migrate, ...PROJECT_COMMANDS, ...KEY_COMMANDS, signingSecretRotate, backup];
