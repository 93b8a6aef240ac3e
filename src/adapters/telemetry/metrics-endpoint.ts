import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { PrometheusMetrics } from './prometheus-metrics.js';

type ScrapeRequest = IncomingMessage | Http2ServerRequest;
type ScrapeResponse = ServerResponse | Http2ServerResponse;

export const METRICS_PATH = '/metrics';

/** Answers a scrape with the registry in the Prometheus text format; HEAD gets the headers alone. */
export async function answerScrape(metrics: PrometheusMetrics, req: ScrapeRequest, res: ScrapeResponse): Promise<void> {
  let body: string;
  try {
    body = await metrics.scrape();
  } catch (err) {
    const text = `metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`;
    (res as ServerResponse).writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  // Both response kinds take the same arguments; their typings just disagree on the overloads.
  (res as ServerResponse).writeHead(200, {
    'Content-Type': metrics.contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

/** `GET /metrics` as an operational route of the API's own listeners (outside API keys and the envelope). */
export function metricsRoute(metrics: PrometheusMetrics): { readonly path: string; handle(req: ScrapeRequest, res: ScrapeResponse): Promise<void> } {
  return { path: METRICS_PATH, handle: (req, res) => answerScrape(metrics, req, res) };
}

export interface MetricsListener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A listener of its own for scrapes (`FERRY_METRICS_PORT`), plain HTTP/1.1: it answers `/metrics` and 404
 * otherwise, so the metrics can sit on a port that only the monitoring network reaches.
 */
export async function startMetricsListener(opts: { host: string; port: number; metrics: PrometheusMetrics }): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path === METRICS_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      void answerScrape(opts.metrics, req, res).catch(() => res.destroy());
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('not found\n');
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve((server.address() as AddressInfo).port));
  });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
