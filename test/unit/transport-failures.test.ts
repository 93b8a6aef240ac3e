import { Socket, createServer, type LookupFunction } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTransport, type HttpTransportOptions } from '../../src/adapters/http/transport.js';
import type { DeliveryTransport, OutboundRequest } from '../../src/ports/delivery-transport.js';
import { replies, startDestination, type Destination } from '../support/destination.js';

let destination: Destination;
let transport: DeliveryTransport;

beforeAll(async () => {
  destination = await startDestination();
});

afterAll(async () => {
  await destination.close();
});

afterEach(async () => {
  await transport.close();
});

function attempt(url: string, overrides: Partial<OutboundRequest> = {}): OutboundRequest {
  return { url, method: 'POST', headers: [], body: Buffer.from('{}'), timeoutMs: 5_000, ...overrides };
}

function trustingTransport(extra: Partial<HttpTransportOptions> = {}): DeliveryTransport {
  return createHttpTransport({ allowPrivateDestinations: true, ca: destination.cert, ...extra });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('http transport: timeouts', () => {
  it('reports the headers phase when the status line is late', async () => {
    transport = trustingTransport();
    destination.on('/slow-headers', replies.delayedHeaders(60_000));
    const { outcome } = await transport.send(attempt(`${destination.url}/slow-headers`, { timeoutMs: 300 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'headers' });
    expect(destination.requestsTo('/slow-headers')).toHaveLength(1);
  });

  it('reports the body phase when the body trickles past the deadline', async () => {
    transport = trustingTransport();
    destination.on('/trickle', replies.trickle({ chunks: 10_000, intervalMs: 20 }));
    const { outcome } = await transport.send(attempt(`${destination.url}/trickle`, { timeoutMs: 300 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'body' });
  });

  it('reports the connect phase when no connection is established in time', async () => {
    // A socket that never connects stands in for a destination that drops SYNs.
    const silent: Socket[] = [];
    transport = trustingTransport({
      tcpConnect: () => {
        const socket = new Socket();
        silent.push(socket);
        return socket;
      },
    });
    const { outcome } = await transport.send(attempt('https://203.0.113.10/never', { timeoutMs: 200 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'connect' });
    expect(silent).toHaveLength(1);
  });

  it('reports the connect phase when the connector gives up first', async () => {
    transport = trustingTransport({ connectTimeoutMs: 100, tcpConnect: () => new Socket() });
    const { outcome } = await transport.send(attempt('https://203.0.113.10/never', { timeoutMs: 5_000 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'connect' });
  });

  it('reports the connect phase for an attempt still waiting for a free connection, and never sends it', async () => {
    transport = trustingTransport({ connectionsPerOrigin: 1 });
    destination.on('/holding', replies.delayedHeaders(600));
    const holding = transport.send(attempt(`${destination.url}/holding`));
    await destination.waitForRequests('/holding', 1);
    const { outcome } = await transport.send(attempt(`${destination.url}/queued`, { timeoutMs: 100 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'connect' });
    expect((await holding).outcome).toMatchObject({ kind: 'response', status: 200 });
    // Queued behind the abandoned attempt, so it reaches the destination only after that one had its turn.
    expect((await transport.send(attempt(`${destination.url}/after-queued`))).outcome).toMatchObject({ kind: 'response', status: 200 });
    expect(destination.requestsTo('/queued')).toHaveLength(0);
  });

  it('reports the total budget when there is none left', async () => {
    transport = trustingTransport();
    const { outcome } = await transport.send(attempt(`${destination.url}/no-budget`, { timeoutMs: 0 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'total' });
    expect(destination.requestsTo('/no-budget')).toHaveLength(0);
  });
});

describe('http transport: network failures', () => {
  it('reports a reset connection as a connection error', async () => {
    transport = trustingTransport();
    destination.on('/reset', replies.reset());
    const { outcome } = await transport.send(attempt(`${destination.url}/reset`));
    expect(outcome).toMatchObject({ kind: 'connection_error' });
    expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain((outcome as { code: string }).code);
  });

  it('reports a refused connection as a connection error', async () => {
    transport = trustingTransport();
    const port = await closedPort();
    const { outcome } = await transport.send(attempt(`https://127.0.0.1:${port}/`));
    expect(outcome).toMatchObject({ kind: 'connection_error', code: 'ECONNREFUSED' });
  });

  it('reports an untrusted certificate as a TLS error, before any request is sent', async () => {
    transport = createHttpTransport({ allowPrivateDestinations: true });
    const { outcome } = await transport.send(attempt(`${destination.url}/untrusted`));
    expect(outcome).toMatchObject({ kind: 'tls_error', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(destination.requestsTo('/untrusted')).toHaveLength(0);
  });

  it('reports a certificate for another name as a TLS error', async () => {
    transport = trustingTransport({ lookup: answering('127.0.0.1') });
    const url = `https://wrong-name.example.com:${destination.port}/wrong-name`;
    const { outcome } = await transport.send(attempt(url));
    expect(outcome).toMatchObject({ kind: 'tls_error', code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(destination.requestsTo('/wrong-name')).toHaveLength(0);
  });

  it('reports a name that does not resolve as a DNS error', async () => {
    const notFound: LookupFunction = (hostname, _options, callback) => {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
    };
    transport = trustingTransport({ lookup: notFound });
    const { outcome } = await transport.send(attempt('https://no-such-host.example.com/'));
    expect(outcome).toMatchObject({ kind: 'dns_error', code: 'ENOTFOUND' });
  });

  it('reports a temporary resolver failure as a DNS error with its code', async () => {
    const tryAgain: LookupFunction = (_hostname, _options, callback) => {
      callback(Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' }), '');
    };
    transport = trustingTransport({ lookup: tryAgain });
    const { outcome } = await transport.send(attempt('https://flaky-dns.example.com/'));
    expect(outcome).toMatchObject({ kind: 'dns_error', code: 'EAI_AGAIN' });
  });
});

describe('http transport: bounded response bodies', () => {
  it('reads a huge body only up to the bound, then drops the connection', async () => {
    const huge = 1024 * 1024 * 1024;
    transport = trustingTransport({ maxResponseBytes: 16 * 1024 });
    destination.on('/huge', replies.largeBody(huge));
    const { outcome } = await transport.send(attempt(`${destination.url}/huge`));
    expect(outcome).toEqual({ kind: 'response', status: 200, retryAfter: null });
    await destination.waitForAllConnectionsClosed();
    const sent = destination.connections.reduce((sum, c) => sum + c.bytesSent, 0);
    expect(sent).toBeLessThan(huge / 16);
  });
});

describe('http transport: aborting', () => {
  it('reports aborted for every attempt in flight when told to abort them, and runs later ones as usual', async () => {
    transport = trustingTransport();
    destination.on('/hang', replies.hang());
    const pending = [1, 2].map(() => transport.send(attempt(`${destination.url}/hang`, { timeoutMs: 60_000 })));
    await destination.waitForRequests('/hang', 2);
    transport.abortInFlight();
    for (const p of pending) expect((await p).outcome).toEqual({ kind: 'aborted' });
    expect((await transport.send(attempt(`${destination.url}/after-abort`))).outcome).toMatchObject({ kind: 'response', status: 200 });
  });

  it('closes promptly even while a connection is still being set up', async () => {
    transport = trustingTransport({ tcpConnect: () => new Socket() });
    const pending = transport.send(attempt('https://203.0.113.10/never', { timeoutMs: 60_000 }));
    await transport.close();
    expect((await pending).outcome).toEqual({ kind: 'aborted' });
  });

  it('reports aborted for an attempt made after close', async () => {
    transport = trustingTransport();
    await transport.close();
    const { outcome } = await transport.send(attempt(`${destination.url}/after-close`));
    expect(outcome).toEqual({ kind: 'aborted' });
  });
});

function answering(address: string): LookupFunction {
  return (_hostname, _options, callback) => callback(null, [{ address, family: 4 }]);
}
