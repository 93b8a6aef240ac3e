#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config/config.js';
import { FerryError } from '../domain/errors.js';
import { log } from '../runtime/log.js';
import { migrateStorage, openBackend, projectAdmin, startService } from '../runtime/service.js';
import { intOption, parseOptions, requiredOption, UsageError } from './args.js';

const USAGE = `Usage:
  ferry serve                               start the service (configuration from FERRY_* variables)
  ferry migrate                             create or upgrade the storage schema
  ferry project create --name NAME [--monthly-allowance N] [--schedule-allowance N] [--retention-days N]
  ferry key create --project PROJECT_ID     issue another API key for a project
  ferry key revoke --key API_KEY_OR_KEY_ID  revoke an API key
  ferry signing-secret rotate --project PROJECT_ID [--overlap-hours N]
                                            make a new delivery signing secret current (old ones sign for N hours, default 24)`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, sub] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config);
    case 'migrate': {
      await migrateStorage(config);
      print({ migrated: true });
      return 0;
    }
    case 'project':
      if (sub !== 'create') break;
      return withAdmin(config, async (admin) => {
        const o = parseOptions(argv.slice(2));
        const { project, apiKey, signingSecret } = await admin.createProject({
          name: requiredOption(o, 'name'),
          monthlyAllowance: intOption(o, 'monthly-allowance'),
          scheduleAllowance: intOption(o, 'schedule-allowance'),
          retentionDays: intOption(o, 'retention-days'),
        });
        print({
          project_id: project.id,
          name: project.name,
          monthly_allowance: project.monthlyAllowance,
          schedule_allowance: project.scheduleAllowance,
          retention_days: project.retentionDays,
          api_key: apiKey,
          signing_secret: signingSecret,
        });
      });
    case 'key': {
      const o = parseOptions(argv.slice(2));
      if (sub === 'create') {
        return withAdmin(config, async (admin) => {
          const projectId = requiredOption(o, 'project');
          print({ project_id: projectId, api_key: await admin.createKey(projectId) });
        });
      }
      if (sub === 'revoke') {
        return withAdmin(config, async (admin) => print({ revoked_key_id: await admin.revokeKey(requiredOption(o, 'key')) }));
      }
      break;
    }
    case 'signing-secret': {
      if (sub !== 'rotate') break;
      const o = parseOptions(argv.slice(2));
      return withAdmin(config, async (admin) => {
        const projectId = requiredOption(o, 'project');
        const hours = intOption(o, 'overlap-hours') ?? 24;
        const secret = await admin.rotateSigningSecret(projectId, hours * 3_600_000);
        print({ project_id: projectId, signing_secret: secret, previous_secrets_sign_for_hours: hours });
      });
    }
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
  }
  throw new UsageError(`Unknown command: ${argv.join(' ')}`);
}

async function serve(config: ReturnType<typeof loadConfig>): Promise<number> {
  // Signals are caught from the first moment: one that arrives while starting stops the service once started.
  let signalled: string | null = null;
  let onSignal: (signal: string) => void = (signal) => {
    signalled = signal;
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));

  const service = await startService(config);
  log('info', service.server ? 'listening' : 'started', {
    host: config.host,
    http_port: service.server?.httpPort ?? null,
    grpc_port: service.server?.grpcPort ?? null,
    tls: config.tls !== null,
    roles: Object.entries(config.roles).flatMap(([role, on]) => (on ? [role] : [])),
    backend: config.backend,
    ...(config.distributed ? { shards: config.distributed.shards } : { data_dir: config.dataDir }),
  });
  return new Promise<number>((resolve) => {
    onSignal = (signal) => {
      log('info', 'stopping', { signal });
      service.stop().then(
        () => resolve(0),
        (err: unknown) => {
          log('error', 'stop failed', { error: String(err) });
          resolve(1);
        },
      );
    };
    if (signalled !== null) onSignal(signalled);
  });
}

async function withAdmin(
  config: ReturnType<typeof loadConfig>,
  work: (admin: ReturnType<typeof projectAdmin>) => Promise<void>,
): Promise<number> {
  const backend = await openBackend(config);
  try {
    await work(projectAdmin(backend));
    return 0;
  } finally {
    await backend.close();
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`ferry: ${err.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    if (err instanceof FerryError) {
      process.stderr.write(`ferry: ${err.code}: ${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`ferry: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
