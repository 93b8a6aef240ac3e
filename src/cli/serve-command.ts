import { loadConfig, type Config, type VariableName } from '../config/config.js';
import { log } from '../runtime/log.js';
import { DataDirInUse } from '../runtime/storage.js';
import type { Command } from './args.js';
import { CliFailure } from './output.js';

export const serveCommand: Command = {
  words: ['serve'],
  summary: 'run the service until SIGTERM or SIGINT',
  details:
    "Configuration comes from FERRY_* variables ('ferry config --help' lists them). On the embedded backend one " +
    'server holds the data directory; a second one exits at once, naming the first.',
  options: [],
  run: () => serve(loadConfig()),
};

async function serve(config: Config): Promise<number> {
  // Signals are caught from the first moment: one that arrives while starting stops the service once started.
  let signalled: string | null = null;
  let onSignal: (signal: string) => void = (signal) => {
    signalled = signal;
  };
  // Every signal goes to the one stop, which has its own deadline: a second SIGTERM must not cut the drain short.
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  // Loaded here, not with the CLI: the service's modules (protocols, workers, telemetry) cost every other command,
  // `--help` included, half a second of a core.
  const { startService } = await import('../runtime/service.js');
  const service = await startService(config).catch((err: unknown) => {
    throw startFailure(err, config) ?? err;
  });
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

interface SystemError {
  readonly code?: unknown;
  readonly syscall?: unknown;
  readonly port?: unknown;
  readonly address?: unknown;
  readonly hostname?: unknown;
}

/**
 * A start-up failure the operator can fix, as one line naming the variable at fault: a listener that cannot
 * bind, or a data directory another server holds. Anything else is left as it is.
 */
export function startFailure(err: unknown, config: Config): CliFailure | null {
  if (err instanceof DataDirInUse) return new CliFailure(err.message);
  if (typeof err !== 'object' || err === null) return null;
  const e = err as SystemError;
  const host = `FERRY_HOST=${config.host}`;
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') {
    return e.hostname === config.host ? new CliFailure(`${host}: the host name does not resolve (${e.code})`) : null;
  }
  if (e.syscall !== 'listen' && e.syscall !== 'bind') return null;
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'EAFNOSUPPORT') {
    return new CliFailure(`${host}: not an address of this machine, so nothing can listen on it (${e.code})`);
  }
  const variable = typeof e.port === 'number' ? portVariable(config, e.port) : null;
  if (variable === null) return null;
  const setting = `${variable}=${String(e.port)}`;
  if (e.code === 'EADDRINUSE') return new CliFailure(`${setting}: the port is already in use on ${config.host}`);
  if (e.code === 'EACCES') return new CliFailure(`${setting}: not allowed to listen on this port on ${config.host} (EACCES)`);
  return null;
}

function portVariable(config: Config, port: number): VariableName | null {
  if (port === 0) return null;
  if (port === config.httpPort) return 'FERRY_HTTP_PORT';
  if (port === config.grpcPort) return 'FERRY_GRPC_PORT';
  if (port === config.metrics.port) return 'FERRY_METRICS_PORT';
  return null;
}
