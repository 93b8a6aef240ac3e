import { connect, createServer, type LookupFunction, type NetConnectOpts, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTransport, type HttpTransportOptions } from '../../src/adapters/http/transport.js';
import { isPublicAddress } from '../../src/domain/validation/url.js';
import type { DeliveryTransport, OutboundRequest } from '../../src/ports/delivery-transport.js';
import { startDestination, type Destination } from '../support/destination.js';

// Public addresses that the tests only ever hand to the guard: no socket is ever opened to them.
const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V4_OTHER = '151.101.1.69';

let destination: Destination;
let ipv6Loopback: boolean;
const transports: DeliveryTransport[] = [];

async function canListenOnIpv6Loopback(): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => probe.close(() => resolve(true)));
  });
}

beforeAll(async () => {
  ipv6Loopback = await canListenOnIpv6Loopback();
  // Dual-stack when possible, so that an attempt at [::1] or ::ffff:127.0.0.1 would be seen here too.
  destination = await startDestination(ipv6Loopback ? { listenHost: '::' } : {});
});

afterAll(async () => {
  await destination.close();
});

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

function strictTransport(extra: Partial<HttpTransportOptions> = {}): DeliveryTransport {
  const transport = createHttpTransport({ allowPrivateDestinations: false, ca: destination.cert, ...extra });
  transports.push(transport);
  return transport;
}

function attempt(url: string): OutboundRequest {
  return { url, method: 'POST', headers: [['Content-Type', 'application/json']], body: Buffer.from('{"secret":1}'), timeoutMs: 5_000 };
}

function answering(...addresses: string[]): LookupFunction {
  return (_hostname, _options, callback) => {
    callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
}

/** Records every raw connection the transport opens, and opens it for real. */
function recordingConnect(calls: NetConnectOpts[]): (options: NetConnectOpts) => Socket {
  return (options) => {
    calls.push(options);
    return connect(options);
  };
}

/**
 * Asserts that the destination accepted no connection besides `expected`: a sentinel connection made now is accepted
 * after anything the transport could still have in flight, so once it arrives the count is final.
 */
async function expectConnectionsToStayAt(expected: number): Promise<void> {
  const sentinel = createHttpTransport({ allowPrivateDestinations: true, ca: destination.cert });
  try {
    const path = `/sentinel-${destination.requests.length}`;
    expect((await sentinel.send({ ...attempt(`${destination.url}${path}`) })).outcome).toMatchObject({ status: 200 });
    expect(destination.connections.length).toBe(expected + 1);
  } finally {
    await sentinel.close();
  }
}

describe('http transport SSRF guard (a): address literals are refused before connecting', () => {
  it.each([
    ['IPv4 loopback', () => `https://127.0.0.1:${destination.port}/`, '127.0.0.1'],
    ['IPv4-mapped IPv6 loopback', () => `https://[::ffff:127.0.0.1]:${destination.port}/`, '127.0.0.1'],
    ['IPv4-mapped IPv6 in hex', () => `https://[::ffff:7f00:1]:${destination.port}/`, '127.0.0.1'],
  ])('%s', async (_name, url, shown) => {
    const before = destination.connections.length;
    const calls: NetConnectOpts[] = [];
    const { outcome } = await strictTransport({ tcpConnect: recordingConnect(calls) }).send(attempt(url()));
    expect(outcome).toMatchObject({ kind: 'blocked' });
    expect((outcome as { message: string }).message).toContain(shown);
    expect(calls).toHaveLength(0);
    await expectConnectionsToStayAt(before);
  });

  it('IPv6 loopback', async (ctx) => {
    if (!ipv6Loopback) ctx.skip();
    const before = destination.connections.length;
    const calls: NetConnectOpts[] = [];
    const { outcome } = await strictTransport({ tcpConnect: recordingConnect(calls) })
      .send(attempt(`https://[::1]:${destination.port}/`));
    expect(outcome).toMatchObject({ kind: 'blocked' });
    expect(calls).toHaveLength(0);
    await expectConnectionsToStayAt(before);
  });

  it.each([
    'https://10.0.0.1/', 'https://172.16.5.4/', 'https://192.168.1.1/', 'https://169.254.169.254/latest/meta-data/',
    'https://100.64.0.1/', 'https://0.0.0.0/', 'https://192.0.2.1/', 'https://224.0.0.1/', 'https://[fe80::1]/',
    'https://[fc00::1]/', 'https://[::ffff:a9fe:a9fe]/', 'https://[64:ff9b::7f00:1]/', 'https://[::]/',
  ])('%s', async (url) => {
    const calls: NetConnectOpts[] = [];
    const { outcome } = await strictTransport({ tcpConnect: recordingConnect(calls) }).send(attempt(url));
    expect(outcome).toMatchObject({ kind: 'blocked' });
    expect(calls).toHaveLength(0);
  });
});

describe('http transport SSRF guard (b): names resolving to non-public addresses are refused before any SYN', () => {
  it('refuses a name that resolves to loopback', async () => {
    const before = destination.connections.length;
    const asked: string[] = [];
    const lookup: LookupFunction = (hostname, options, callback) => {
      asked.push(hostname);
      answering('127.0.0.1')(hostname, options, callback);
    };
    const { outcome } = await strictTransport({ lookup }).send(attempt(`https://loopback.example.com:${destination.port}/`));
    expect(outcome).toMatchObject({ kind: 'blocked' });
    expect((outcome as { message: string }).message).toContain('127.0.0.1');
    expect(asked).toEqual(['loopback.example.com']);
    await expectConnectionsToStayAt(before);
  });

  it('refuses a name whose answers are all non-public, IPv4-mapped ones included', async () => {
    const before = destination.connections.length;
    const lookup = answering('::ffff:127.0.0.1', '10.1.2.3', '::1', '169.254.169.254');
    const { outcome } = await strictTransport({ lookup }).send(attempt(`https://mixed.example.com:${destination.port}/`));
    expect(outcome).toMatchObject({ kind: 'blocked' });
    await expectConnectionsToStayAt(before);
  });

  it('refuses a name that answered a public address to an earlier check and loopback now (rebinding)', async () => {
    const before = destination.connections.length;
    const answers = [PUBLIC_V4, '127.0.0.1'];
    let calls = 0;
    const rebinding: LookupFunction = (hostname, options, callback) => {
      const address = answers[Math.min(calls, answers.length - 1)]!;
      calls += 1;
      answering(address)(hostname, options, callback);
    };
    // The earlier check, as URL validation at submission would do it: the name looked public then.
    const firstAnswer = await new Promise<string>((resolve) => {
      rebinding('rebind.example.com', { all: true }, (_err, addresses) => resolve((addresses as Array<{ address: string }>)[0]!.address));
    });
    expect(isPublicAddress(firstAnswer)).toBe(true);

    const { outcome } = await strictTransport({ lookup: rebinding }).send(attempt(`https://rebind.example.com:${destination.port}/`));
    expect(outcome).toMatchObject({ kind: 'blocked' });
    expect(calls).toBe(2);
    await expectConnectionsToStayAt(before);
  });
});

describe('http transport SSRF guard (c): the connected address is checked before the first byte', () => {
  // The raw connect ignores what the guarded lookup said and lands on the loopback destination, as DNS rebinding
  // behind the lookup hook, a hostile resolver or a NAT rule would. Only the remoteAddress check stands in the way.
  async function landingOnLoopback(url: string, lookup: LookupFunction, host = '127.0.0.1') {
    const before = destination.connections.length;
    const beforeRequests = destination.requests.length;
    const beforeHandshakes = destination.handshakes;
    const resolvedByGuard: string[][] = [];
    const tcpConnect = (options: NetConnectOpts): Socket => {
      const { host: name, lookup: guarded } = options as { host: string; lookup?: LookupFunction };
      guarded?.(name, { all: true }, (_err, addresses) => {
        if (Array.isArray(addresses)) resolvedByGuard.push(addresses.map((a) => a.address));
      });
      return connect({ host, port: destination.port });
    };
    const { outcome } = await strictTransport({ lookup, tcpConnect }).send(attempt(url));

    expect(outcome).toMatchObject({ kind: 'blocked' });
    await destination.waitForConnections(before + 1);
    await destination.waitForAllConnectionsClosed();
    const landed = destination.connections[before]!;
    expect(landed.bytesReceived).toBe(0);
    expect(destination.handshakes).toBe(beforeHandshakes);
    expect(destination.requests.length).toBe(beforeRequests);
    await expectConnectionsToStayAt(before + 1);
    return { outcome: outcome as { message: string }, resolvedByGuard };
  }

  it('refuses a socket that reached loopback although the name resolved to a public address', async () => {
    const { outcome, resolvedByGuard } = await landingOnLoopback(
      `https://rebound.example.com:${destination.port}/`, answering(PUBLIC_V4),
    );
    expect(outcome.message).toContain('127.0.0.1');
    expect(resolvedByGuard).toEqual([[PUBLIC_V4]]);
  });

  it('hands only the public answers on when a name resolves to public and private addresses', async () => {
    const { resolvedByGuard } = await landingOnLoopback(
      `https://split.example.com:${destination.port}/`, answering('127.0.0.1', PUBLIC_V4, '10.0.0.7', PUBLIC_V4_OTHER),
    );
    expect(resolvedByGuard).toEqual([[PUBLIC_V4, PUBLIC_V4_OTHER]]);
  });

  it('checks a public address literal again once connected', async () => {
    const { outcome } = await landingOnLoopback(`https://${PUBLIC_V4}:${destination.port}/`, answering());
    expect(outcome.message).toContain('127.0.0.1');
  });

  it('judges an IPv4-mapped IPv6 peer by its IPv4 address', async (ctx) => {
    if (!ipv6Loopback) ctx.skip();
    const { outcome } = await landingOnLoopback(
      `https://mapped.example.com:${destination.port}/`, answering(PUBLIC_V4), '::ffff:127.0.0.1',
    );
    expect(outcome.message).toContain('127.0.0.1');
    expect(outcome.message).not.toContain('::ffff');
  });
});

describe('http transport SSRF guard: switched off for development', () => {
  it('delivers to loopback names and literals when private destinations are allowed', async () => {
    const transport = createHttpTransport({ allowPrivateDestinations: true, ca: destination.cert, lookup: answering('127.0.0.1') });
    transports.push(transport);
    expect((await transport.send(attempt(`${destination.url}/dev-literal`))).outcome).toMatchObject({ status: 200 });
    expect((await transport.send(attempt(`https://localhost:${destination.port}/dev-name`))).outcome).toMatchObject({ status: 200 });
    expect(destination.requestsTo('/dev-literal')).toHaveLength(1);
    expect(destination.requestsTo('/dev-name')).toHaveLength(1);
  });
});
