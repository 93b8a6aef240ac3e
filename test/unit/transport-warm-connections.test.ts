import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { waitFor } from '../support/destination.js';
import { anOutbound, TRANSPORTS, transportFixture } from '../support/transports.js';

/**
 * `prepare` opens connections to an origin before the attempts that will use them: the attempts then find them
 * ready instead of connecting, connections already open count, a connection the destination closed meanwhile is
 * never handed to an attempt, unused ones are closed again, and nothing is opened where an attempt could not go.
 */
const fixture = transportFixture();

describe.each(TRANSPORTS)('connections opened ahead, transport %s', (_where, create) => {
  it('opens them before the attempts, which then use them and open none of their own', async () => {
    const { destination } = fixture;
    fixture.transport = create({ allowPrivateDestinations: true, ca: destination.cert, connectionsPerOrigin: 8 });
    const before = destination.handshakes;
    fixture.transport.prepare!(`${destination.url}/ahead`, 3);
    await waitFor(() => destination.handshakes === before + 3, 'three connections opened ahead');

    const outcomes = await Promise.all([1, 2, 3].map(() => fixture.transport.send(anOutbound(`${destination.url}/ahead`))));
    expect(outcomes.map((o) => o.outcome)).toEqual(Array(3).fill({ kind: 'response', status: 200, retryAfter: null, headers: [] }));
    expect(destination.handshakes).toBe(before + 3);
  });

  it('counts the connections already open, and opens no more than the per-origin limit', async () => {
    const { destination } = fixture;
    fixture.transport = create({ allowPrivateDestinations: true, ca: destination.cert, connectionsPerOrigin: 2 });
    const before = destination.handshakes;
    await fixture.transport.send(anOutbound(`${destination.url}/counted`));
    expect(destination.handshakes).toBe(before + 1);

    fixture.transport.prepare!(`${destination.url}/counted`, 5);
    await waitFor(() => destination.handshakes === before + 2, 'one more connection');
    await Promise.all([1, 2].map(() => fixture.transport.send(anOutbound(`${destination.url}/counted`))));
    expect(destination.handshakes).toBe(before + 2);
  });

  it('never connects ahead to an address an attempt may not reach', async () => {
    const { destination } = fixture;
    fixture.transport = create({ ca: destination.cert, allowPrivateDestinations: false });
    const before = destination.connections.length;
    fixture.transport.prepare!(`${destination.url}/private`, 2);
    const { outcome } = await fixture.transport.send(anOutbound(`${destination.url}/private`));
    expect(outcome.kind).toBe('blocked');
    expect(destination.connections.length).toBe(before);
  });

  it('closes connections opened ahead that no attempt used', async () => {
    const { destination } = fixture;
    fixture.transport = create({ allowPrivateDestinations: true, ca: destination.cert });
    const before = destination.connections.length;
    fixture.transport.prepare!(`${destination.url}/unused`, 2);
    await destination.waitForConnections(before + 2);
    await waitFor(() => destination.connections.slice(before).every((c) => c.closed), 'the unused connections to close', 15_000);
    // The close comes after the transport's idle timeout (seconds): the test waits for it as long as the wait above.
  }, 20_000);
});

describe.each(TRANSPORTS)('a connection opened ahead and closed by the destination, transport %s', (_where, create) => {
  it('is not handed to an attempt: the attempt connects anew and gets its answer', async () => {
    const certificate = sharedSelfSignedCertificate();
    const sockets: Socket[] = [];
    let handshakes = 0;
    const server: Server = createServer({ key: readFileSync(certificate.keyFile), cert: certificate.cert }, (_req, res) => {
      res.writeHead(200, { 'content-length': '0' }).end();
    });
    server.on('connection', (s: Socket) => sockets.push(s));
    server.on('secureConnection', () => (handshakes += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/closed`;
    try {
      fixture.transport = create({ allowPrivateDestinations: true, ca: certificate.cert });
      fixture.transport.prepare!(url, 1);
      await waitFor(() => handshakes === 1, 'the connection opened ahead');
      // The destination closes it, as servers close connections that carry no request.
      for (const s of sockets) s.end();
      await waitFor(() => sockets.every((s) => s.closed), 'the destination to close it');

      const { outcome } = await fixture.transport.send(anOutbound(url));
      expect(outcome).toMatchObject({ kind: 'response', status: 200, retryAfter: null });
      expect(handshakes).toBe(2);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
