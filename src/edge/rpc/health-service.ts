import { Code, ConnectError, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import { HealthCheckResponse_ServingStatus as ServingStatus, type Health } from '../../gen/grpc/health/v1/health_pb.js';
import type { Readiness } from '../health/readiness.js';

/** How often a Watch looks at readiness again; the start of a drain reaches it at once. */
const WATCH_EVERY_MS = 1_000;

/**
 * The standard gRPC health service over the process's readiness: the server as a whole ("") and each named
 * service are SERVING while the process is ready, and NOT_SERVING while a check fails or the process drains.
 */
export function healthServiceImpl(readiness: Readiness, serviceNames: readonly string[]): ServiceImpl<typeof Health> {
  const known = new Set(['', ...serviceNames]);
  const status = async (): Promise<ServingStatus> => ((await readiness.report()).ready ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
  return {
    async check(req) {
      if (!known.has(req.service)) throw new ConnectError(`Unknown service "${req.service}".`, Code.NotFound);
      return { status: await status() };
    },
    async list() {
      const current = await status();
      return { statuses: Object.fromEntries([...known].map((name) => [name, { status: current }])) };
    },
    async *watch(req, ctx) {
      if (!known.has(req.service)) {
        // The protocol keeps the call open: the service may become known later (in Ferry it never does).
        yield { status: ServingStatus.SERVICE_UNKNOWN };
        await ended(ctx);
        throw endOf(ctx);
      }
      let sent: ServingStatus | null = null;
      while (!ctx.signal.aborted) {
        const current = await status();
        if (current !== sent) {
          sent = current;
          yield { status: current };
        }
        await readiness.pause(WATCH_EVERY_MS, ctx.signal);
      }
      throw endOf(ctx);
    },
  };
}

/**
 * A watch ends only when its call does: the client went away, or the server shuts down, which the watcher must
 * learn as UNAVAILABLE (the signal's reason), not as a watch that completed.
 */
function endOf(ctx: HandlerContext): ConnectError {
  return ConnectError.from(ctx.signal.reason, Code.Unavailable);
}

function ended(ctx: HandlerContext): Promise<void> {
  return new Promise((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
