import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { sharedSelfSignedCertificate, type TestCertificate } from '../support/certs.js';

/** What a benchmark needs to know of a call: where it went, which request (and schedule) it was, when it arrived. */
export interface Arrival {
  readonly path: string;
  readonly requestId: string | undefined;
  readonly scheduleId: string | undefined;
  readonly receivedAt: number;
}

export interface Receiver {
  readonly url: string;
  readonly certFile: string;
  readonly cert: TestCertificate['cert'];
  readonly arrivals: Arrival[];
  arrivalsAt(path: string): Arrival[];
  /** Arrivals so far. */
  count(): number;
  close(): Promise<void>;
}

function header(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The destination of the delivery benchmarks: an HTTPS server on loopback that reads each body, answers 200 with
 * no body, and notes the arrival. It shares the machine's two cores with the service under test, so it does as
 * little as a receiver can; the scriptable destination of the tests (`test/support/destination.ts`) records every
 * header and byte and costs about a third more per call.
 *
 * `responseBytes`: a body of that many bytes with every answer (default none), for what keeping bodies costs:
 * `json` answers look like an API's JSON document (IDs and numbers differing from answer to answer, as real ones
 * do), `random` answers are random bytes (what compressed or binary answers look like to storage).
 * `statusOf`: the status answered on a path (200 unless it says otherwise), asked at every call, so a destination
 * can be down for a while and then recover.
 */
export async function startReceiver(
  responseBytes = 0,
  statusOf: (path: string) => number = () => 200,
  kind: 'json' | 'random' = 'json',
): Promise<Receiver> {
  const answers = Array.from({ length: 64 }, (_, n) => (kind === 'json' ? jsonAnswer(responseBytes, n) : randomBytes(responseBytes)));
  let answered = 0;
  const certificate = sharedSelfSignedCertificate();
  const arrivals: Arrival[] = [];
  const server: Server = createServer({ key: readFileSync(certificate.keyFile), cert: certificate.cert }, (req, res) => {
    const receivedAt = Date.now();
    const path = (req.url ?? '').split('?')[0]!;
    arrivals.push({ path, requestId: header(req.headers['service-request-id']), scheduleId: header(req.headers['service-schedule-id']), receivedAt });
    req.resume();
    const answer = answers[answered++ % answers.length]!;
    req.on('end', () => res.writeHead(statusOf(path), { 'content-length': String(answer.length) }).end(answer));
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
    arrivalsAt: (path) => arrivals.filter((a) => a.path === path),
    count: () => arrivals.length,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A JSON document of exactly `size` bytes (cut), shaped like an API's answer listing items. */
function jsonAnswer(size: number, seed: number): Buffer {
  let text = `{"id":"${randomUUID()}","object":"list","url":"/v1/orders?page=${seed}","data":[`;
  for (let i = 0; text.length < size; i++) {
    text += `{"id":"ord_${randomBytes(8).toString('hex')}","amount":${(seed * 7919 + i * 104_729) % 100_000},` +
      `"currency":"eur","status":"${i % 3 === 0 ? 'paid' : 'pending'}","created":${1_790_000_000 + i * 37},"customer":"cus_${randomBytes(6).toString('hex')}"},`;
  }
  return Buffer.from(text.slice(0, size));
}
