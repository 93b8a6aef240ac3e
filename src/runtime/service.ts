import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { openEmbeddedBackend } from '../adapters/embedded/backend.js';
import { AcceptRequests } from '../app/accept-requests.js';
import { Authenticator } from '../app/authenticate.js';
import { IdempotencyGuard } from '../app/idempotency-guard.js';
import { ProjectAdmin } from '../app/project-admin.js';
import { RequestCommands } from '../app/request-commands.js';
import { RequestQueries } from '../app/request-queries.js';
import type { Config } from '../config/config.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { served, startServer, type RunningServer } from '../edge/server.js';
import { requestServiceImpl } from '../edge/rpc/request-service.js';
import { RequestService } from '../gen/ferry/v1/request_service_pb.js';
import type { Backend } from '../ports/backend.js';

/** The composition root: the only place that knows which adapters exist. */
export function openBackend(config: Config): Backend {
  return openEmbeddedBackend({ path: join(config.dataDir, 'ferry.db') });
}

export function projectAdmin(backend: Backend, clock: Clock = systemClock): ProjectAdmin {
  return new ProjectAdmin(backend.projects, clock);
}

export interface RunningService {
  readonly server: RunningServer;
  /** Stops listening, lets in-flight calls finish, then closes storage. */
  stop(): Promise<void>;
}

export async function startService(config: Config, clock: Clock = systemClock): Promise<RunningService> {
  const backend = openBackend(config);
  try {
    const cursorSecret = await backend.secrets.getOrCreate('cursor', randomBytes(32));
    const guard = new IdempotencyGuard(backend.idempotency, clock);
    const acceptor = new AcceptRequests(backend.requests, backend.usage, guard, clock);
    const impl = requestServiceImpl({
      auth: new Authenticator(backend.projects, clock, config.authCacheMs),
      commands: new RequestCommands(acceptor, backend.requests, clock, {
        allowPrivateDestinations: config.allowPrivateDestinations,
      }),
      queries: new RequestQueries(backend.requests, clock, cursorSecret),
    });
    const server = await startServer({
      host: config.host,
      httpPort: config.httpPort,
      grpcPort: config.grpcPort,
      tls: config.tls,
      services: [served(RequestService, impl)],
    });
    return {
      server,
      async stop() {
        await server.close();
        await backend.close();
      },
    };
  } catch (err) {
    await backend.close();
    throw err;
  }
}
