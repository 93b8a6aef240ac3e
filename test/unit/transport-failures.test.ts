import { Socket, createServer, type LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createHttpTransport, type HttpTransportOptions } from '../../src/adapters/http/transport.js';
import type { DeliveryTransport } from '../../src/ports/delivery-transport.js';
import { replies } from '../support/destination.js';
import { anOutbound, transportFixture } from '../support/transports.js';

const fx = transportFixture();

function trustingTransport(extra: Partial<HttpTransportOptions> = {}): DeliveryTransport {
  return createHttpTransport({ allowPrivateDestinations: true, ca: fx.destination.cert, ...extra });
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
    fx.transport = trustingTransport();
    fx.destination.on('/slow-headers', replies.delayedHeaders(60_000));
    const { outcome } = await fx.transport.send(anOutbound(`${fx.destination.url}/slow-headers`, { timeoutMs: 300 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'headers' });
    expect(fx.destination.requestsTo('/slow-headers')).toHaveLength(1);
  });

  it('reports the body phase when the body trickles past the deadline', async () => {
    fx.transport = trustingTransport();
    fx.destination.on('/trickle', replies.trickle({ chunks: 10_000, intervalMs: 20 }));
    const { outcome } = await fx.transport.send(anOutbound(`${fx.destination.url}/trickle`, { timeoutMs: 300 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'body' });
  });

  it('reports the connect phase when no connection is established in time', async () => {
    // A socket that never connects stands in for a destination that drops SYNs.
    const silent: Socket[] = [];
    fx.transport = trustingTransport({
      tcpConnect: () => {
        const socket = new Socket();
        silent.push(socket);
        return socket;
      },
    });
    const { outcome } = await fx.transport.send(anOutbound('https://203.0.113.10/never', { timeoutMs: 200 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'connect' });
    expect(silent).toHaveLength(1);
  });

  it('reports the connect phase when the connector gives up first', async () => {
    fx.transport = trustingTransport({ connectTimeoutMs: 100, tcpConnect: () => new Socket() });
    const { outcome } = await fx.transport.send(anOutbound('https://203.0.113.10/never', { timeoutMs: 5_000 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'connect' });
  });

  it('reports the connect phase for an attempt still waiting for a free connection, and never sends it', async () => {
    fx.transport = trustingTransport({ connectionsPerOrigin: 1 });
    fx.destination.on('/holding', replies.delayedHeaders(600));
    const holding = fx.transport.send(anOutbound(`${fx.destination.url}/holding`));
    await fx.destination.waitForRequests('/holding', 1);
    const { outcome } = await fx.transport.send(anOutbound(`${fx.destination.url}/queued`, { timeoutMs: 100 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'connect' });
    expect((await holding).outcome).toMatchObject({ kind: 'response', status: 200 });
    // Queued behind the abandoned attempt, so it reaches the destination only after that one had its turn.
    expect((await fx.transport.send(anOutbound(`${fx.destination.url}/after-queued`))).outcome).toMatchObject({ kind: 'response', status: 200 });
    expect(fx.destination.requestsTo('/queued')).toHaveLength(0);
  });

  it('reports the total budget when there is none left', async () => {
    fx.transport = trustingTransport();
    const { outcome } = await fx.transport.send(anOutbound(`${fx.destination.url}/no-budget`, { timeoutMs: 0 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'total' });
    expect(fx.destination.requestsTo('/no-budget')).toHaveLength(0);
  });
});

describe('http transport: network failures', () => {
  it('reports a reset connection as a connection error', async () => {
    fx.transport = trustingTransport();
    fx.destination.on('/reset', replies.reset());
    const { outcome } = await fx.transport.send(anOutbound(`${fx.destination.url}/reset`));
    expect(outcome).toMatchObject({ kind: 'connection_error' });
    expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain((outcome as { code: string }).code);
  });

  it('reports a refused connection as a connection error', async () => {
    fx.transport = trustingTransport();
    const port = await closedPort();
    const { outcome } = await fx.transport.send(anOutbound(`https://127.0.0.1:${port}/`));
    expect(outcome).toMatchObject({ kind: 'connection_error', code: 'ECONNREFUSED' });
  });

  it('reports an untrusted certificate as a TLS error, before any request is sent', async () => {
    fx.transport = createHttpTransport({ allowPrivateDestinations: true });
    const { outcome } = await fx.transport.send(anOutbound(`${fx.destination.url}/untrusted`));
    expect(outcome).toMatchObject({ kind: 'tls_error', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(fx.destination.requestsTo('/untrusted')).toHaveLength(0);
  });

  it('reports a certificate for another name as a TLS error', async () => {
    fx.transport = trustingTransport({ lookup: answering('127.0.0.1') });
    const url = `https://wrong-name.example.com:${fx.destination.port}/wrong-name`;
    const { outcome } = await fx.transport.send(anOutbound(url));
    expect(outcome).toMatchObject({ kind: 'tls_error', code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(fx.destination.requestsTo('/wrong-name')).toHaveLength(0);
  });

  it('reports a name that does not resolve as a DNS error', async () => {
    const notFound: LookupFunction = (hostname, _options, callback) => {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
    };
    fx.transport = trustingTransport({ lookup: notFound });
    const { outcome } = await fx.transport.send(anOutbound('https://no-such-host.example.com/'));
    expect(outcome).toMatchObject({ kind: 'dns_error', code: 'ENOTFOUND' });
  });

  it('reports a temporary resolver failure as a DNS error with its code', async () => {
    const tryAgain: LookupFunction = (_hostname, _options, callback) => {
      callback(Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' }), '');
    };
    fx.transport = trustingTransport({ lookup: tryAgain });
    const { outcome } = await fx.transport.send(anOutbound('https://flaky-dns.example.com/'));
    expect(outcome).toMatchObject({ kind: 'dns_error', code: 'EAI_AGAIN' });
  });
});

describe('http transport: bounded response bodies', () => {
  it('reads a huge body only up to the bound, then drops the connection', async () => {
    const huge = 1024 * 1024 * 1024;
    fx.transport = trustingTransport({ maxResponseBytes: 16 * 1024 });
    fx.destination.on('/huge', replies.largeBody(huge));
    const { outcome } = await fx.transport.send(anOutbound(`${fx.destination.url}/huge`));
    expect(outcome).toMatchObject({ kind: 'response', status: 200, retryAfter: null });
    await fx.destination.waitForAllConnectionsClosed();
    const sent = fx.destination.connections.reduce((sum, c) => sum + c.bytesSent, 0);
    expect(sent).toBeLessThan(huge / 16);
  });
});

describe('http transport: aborting', () => {
  it('closes promptly even while a connection is still being set up', async () => {
    fx.transport = trustingTransport({ tcpConnect: () => new Socket() });
    const pending = fx.transport.send(anOutbound('https://203.0.113.10/never', { timeoutMs: 60_000 }));
    await fx.transport.close();
    expect((await pending).outcome).toEqual({ kind: 'aborted' });
  });

  it('reports aborted for an attempt made after close', async () => {
    fx.transport = trustingTransport();
    await fx.transport.close();
    const { outcome } = await fx.transport.send(anOutbound(`${fx.destination.url}/after-close`));
    expect(outcome).toEqual({ kind: 'aborted' });
  });
});

function answering(address: string): LookupFunction {
  return (_hostname, _options, callback) => callback(null, [{ address, family: 4 }]);
}
