import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createThreadedTransport, threadedTransportRunning, type ThreadedTransportOptions } from '../../src/adapters/http/threaded-transport.js';
import { createHttpTransport } from '../../src/adapters/http/transport.js';
import type { DeliveryTransport } from '../../src/ports/delivery-transport.js';
import { replies, startDestination } from '../support/destination.js';
import { anOutbound, transportFixture } from '../support/transports.js';

// What the delivery thread adds to the transport: every kind of outcome crosses back intact, aborts and close
// reach attempts in flight, and attempts to several hosts spread over several threads.

const fx = transportFixture();

function threadedOptions(extra: Partial<ThreadedTransportOptions> = {}): ThreadedTransportOptions {
  return { allowPrivateDestinations: true, ca: fx.destination.cert, threads: 1, ...extra };
}

function threaded(extra: Partial<ThreadedTransportOptions> = {}): DeliveryTransport {
  return createThreadedTransport(threadedOptions(extra));
}

describe('threaded transport: outcomes', () => {
  it('brings back a timeout with its phase', async () => {
    fx.transport = threaded();
    fx.destination.on('/late-headers', replies.delayedHeaders(60_000));
    const { outcome } = await fx.transport.send(anOutbound(`${fx.destination.url}/late-headers`, { timeoutMs: 300 }));
    expect(outcome).toEqual({ kind: 'timeout', phase: 'headers' });
  });

  it("brings back a response's wanted headers and the body's first bytes, read no further than without them", async () => {
    fx.transport = threaded();
    fx.destination.on('/answer', ({ res }) => {
      res.writeHead(503, { 'Service-No-Retry': 'true', 'X-Request-Id': 'r1', 'Set-Cookie': 'a=b', 'Content-Type': 'text/plain' }).end('x'.repeat(3000));
    });
    const { outcome } = await fx.transport.send({ ...anOutbound(`${fx.destination.url}/answer`), captureBodyBytes: 2048 });
    expect(outcome).toMatchObject({ kind: 'response', status: 503, bodyTruncated: true });
    const response = outcome as Extract<typeof outcome, { kind: 'response' }>;
    expect(Object.fromEntries(response.headers!)).toEqual({ 'service-no-retry': 'true', 'x-request-id': 'r1', 'content-type': 'text/plain' });
    expect(Buffer.from(response.bodyStart!).toString()).toBe('x'.repeat(2048));
    const { outcome: none } = await fx.transport.send(anOutbound(`${fx.destination.url}/answer`));
    expect(none).not.toHaveProperty('bodyStart');
  });

  it('brings back connection and TLS errors with their codes', async () => {
    fx.transport = threaded();
    fx.destination.on('/reset', replies.reset());
    const reset = await fx.transport.send(anOutbound(`${fx.destination.url}/reset`));
    expect(reset.outcome).toMatchObject({ kind: 'connection_error' });

    const untrusting = createThreadedTransport({ allowPrivateDestinations: true, threads: 1 });
    try {
      const { outcome } = await untrusting.send(anOutbound(`${fx.destination.url}/untrusted`));
      expect(outcome).toMatchObject({ kind: 'tls_error', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    } finally {
      await untrusting.close();
    }
  });

  it('refuses a private address on the thread as it does on the caller', async () => {
    fx.transport = createThreadedTransport({ allowPrivateDestinations: false, ca: fx.destination.cert, threads: 1 });
    const before = fx.destination.connections.length;
    const { outcome } = await fx.transport.send(anOutbound(`${fx.destination.url}/private`));
    expect(outcome).toMatchObject({ kind: 'blocked' });
    expect(fx.destination.connections.length).toBe(before);
  });
});

describe('threaded transport: faults of its own', () => {
  it('fails an attempt the transport cannot run, as the calling thread would, and serves the next one', async () => {
    fx.transport = threaded();
    const inThread = createHttpTransport({ allowPrivateDestinations: true });
    try {
      await expect(inThread.send(anOutbound('not a url'))).rejects.toThrow();
    } finally {
      await inThread.close();
    }
    await expect(fx.transport.send(anOutbound('not a url'))).rejects.toThrow(/delivery thread failed an attempt/);
    expect((await fx.transport.send(anOutbound(`${fx.destination.url}/after-fault`))).outcome).toMatchObject({ kind: 'response', status: 200 });
  });

  it('fails the attempts of a thread that exits, including one in flight, and serves later ones on a new thread', async () => {
    const here = new URL('../support/exiting-transport-thread.ts', import.meta.url).href;
    fx.transport = threadedTransportRunning({ here, name: 'exiting-transport-thread' }, threadedOptions());
    fx.destination.on('/hang-until-exit', replies.hang());
    expect((await fx.transport.send(anOutbound(`${fx.destination.url}/before-exit`))).outcome).toMatchObject({ kind: 'response', status: 200 });
    const inFlight = fx.transport.send(anOutbound(`${fx.destination.url}/hang-until-exit`, { timeoutMs: 60_000 }));
    await fx.destination.waitForRequests('/hang-until-exit', 1);
    const exiting = fx.transport.send(anOutbound(`${fx.destination.url}/exit-thread`));
    await expect(exiting).rejects.toThrow(/delivery thread stopped \(exit code 7\)/);
    await expect(inFlight).rejects.toThrow(/delivery thread stopped/);
    expect((await fx.transport.send(anOutbound(`${fx.destination.url}/after-exit`))).outcome).toMatchObject({ kind: 'response', status: 200 });
    expect(fx.destination.requestsTo('/exit-thread')).toHaveLength(0);
    // Two threads started from TypeScript source (the loader transforms their modules on each start): on a machine
    // busy with the rest of the suite that alone has taken most of the default 5 s.
  }, 20_000);
});

describe('threaded transport: aborting and closing', () => {
  it('aborts an attempt handed over in the same turn, before it reached the thread', async () => {
    fx.transport = threaded();
    await fx.transport.send(anOutbound(`${fx.destination.url}/warm`));
    fx.destination.on('/hang-same-turn', replies.hang());
    const pending = fx.transport.send(anOutbound(`${fx.destination.url}/hang-same-turn`, { timeoutMs: 60_000 }));
    fx.transport.abortInFlight();
    expect((await pending).outcome).toEqual({ kind: 'aborted' });
  });

  it('hands back attempts still in flight when closed, and every later one', async () => {
    fx.transport = threaded();
    fx.destination.on('/hang-at-close', replies.hang());
    const pending = fx.transport.send(anOutbound(`${fx.destination.url}/hang-at-close`, { timeoutMs: 60_000 }));
    await fx.destination.waitForRequests('/hang-at-close', 1);
    await fx.transport.close();
    expect((await pending).outcome).toEqual({ kind: 'aborted' });
    expect((await fx.transport.send(anOutbound(`${fx.destination.url}/after-close`))).outcome).toEqual({ kind: 'aborted' });
    expect(fx.destination.requestsTo('/after-close')).toHaveLength(0);
  });
});

describe('threaded transport: several threads', () => {
  it('delivers to several hosts at once, each attempt exactly once', async () => {
    const others = await Promise.all([startDestination(), startDestination()]);
    fx.transport = threaded({ threads: 3 });
    try {
      const targets = [fx.destination, ...others];
      const sends = targets.flatMap((d, host) =>
        Array.from({ length: 20 }, (_, i) => fx.transport.send(anOutbound(`${d.url}/spread-${host}-${i}`, { body: Buffer.from(`${host}:${i}`) }))),
      );
      const results = await Promise.all(sends);
      expect(results.every((r) => r.outcome.kind === 'response')).toBe(true);
      targets.forEach((d, host) => {
        for (let i = 0; i < 20; i++) {
          const got = d.requestsTo(`/spread-${host}-${i}`);
          expect(got).toHaveLength(1);
          expect(got[0]!.body.toString()).toBe(`${host}:${i}`);
        }
      });
    } finally {
      await fx.transport.close();
      await Promise.all(others.map((d) => d.close()));
    }
  });

  it('refuses a thread count below one', () => {
    expect(() => createThreadedTransport({ allowPrivateDestinations: true, threads: 0 })).toThrow(RangeError);
  });
});

// A refused port never accepts: the attempt ends on the thread with the code undici reports.
it('threaded transport: a refused connection comes back as a connection error', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fx.transport = threaded();
  const { outcome } = await fx.transport.send(anOutbound(`https://127.0.0.1:${port}/`));
  expect(outcome).toMatchObject({ kind: 'connection_error', code: 'ECONNREFUSED' });
});
