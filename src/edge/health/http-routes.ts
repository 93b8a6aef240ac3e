import type { OperationalRoute } from './operational-routes.js';
import { sendOperationalJson } from './operational-routes.js';
import type { Readiness } from './readiness.js';

/**
 * `GET /healthz` (liveness) answers 200 whenever the event loop runs, and looks at nothing else: restarting a
 * process because its storage is away would not bring the storage back. `GET /readyz` (readiness) answers 200
 * while every check is ok and the process is not draining, else 503; either way with the state of each check.
 */
export function healthRoutes(readiness: Readiness): OperationalRoute[] {
  return [
    { path: '/healthz', handle: (req, res) => sendOperationalJson(req, res, 200, { status: 'ok' }) },
    {
      path: '/readyz',
      async handle(req, res) {
        const report = await readiness.report();
        const checks: Record<string, string | boolean> = {};
        for (const c of report.checks) checks[c.name] = c.state;
        checks.draining = report.draining;
        const failing = [...report.checks.filter((c) => c.state !== 'ok').map((c) => c.name), ...(report.draining ? ['draining'] : [])];
        const status = report.ready ? 'ok' : report.draining ? 'draining' : 'unavailable';
        sendOperationalJson(req, res, report.ready ? 200 : 503, { status, failing, checks });
      },
    },
  ];
}
