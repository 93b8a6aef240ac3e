import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { sharedSelfSignedCertificate, type TestCertificate } from '../support/certs.js';

/** One delivery of an occurrence's request: which request and schedule, and when it arrived. */
export interface OccurrenceArrival {
  readonly requestId: string | undefined;
  readonly scheduleId: string | undefined;
  readonly receivedAt: number;
}

export interface OccurrenceReceiver {
  readonly url: string;
  readonly certFile: string;
  readonly cert: TestCertificate['cert'];
  /** Every arrival in order (bounded by `maxKept`; later ones are only counted). */
  readonly arrivals: OccurrenceArrival[];
  /** Arrivals so far, kept or not. */
  count(): number;
  close(): Promise<void>;
}

function header(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The destination of the schedule benchmark: like `receiver.ts` (HTTPS on loopback, reads the body, answers 200
 * with no body) but it also notes the `Service-Schedule-Id` each occurrence is delivered with.
 */
export async function startOccurrenceReceiver(maxKept = 2_000_000): Promise<OccurrenceReceiver> {
  const certificate = sharedSelfSignedCertificate();
  const arrivals: OccurrenceArrival[] = [];
  let count = 0;
  const server: Server = createServer({ key: readFileSync(certificate.keyFile), cert: certificate.cert }, (req, res) => {
    const receivedAt = Date.now();
    count++;
    if (arrivals.length < maxKept) {
      arrivals.push({ requestId: header(req.headers['service-request-id']), scheduleId: header(req.headers['service-schedule-id']), receivedAt });
    }
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-length': '0' }).end());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    certFile: certificate.certFile,
    cert: certificate.cert,
    arrivals,
    count: () => count,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
