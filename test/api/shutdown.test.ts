import { once } from 'node:events';
import http2 from 'node:http2';
import net from 'node:net';
import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { HealthCheckRequestSchema } from '../../src/gen/grpc/health/v1/health_pb.js';
import { TEST_BACKEND } from '../support/deployment.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { infra } from '../support/infra.js';

const GRACE_MS = 2_000;
/** What the process may take beyond the grace to close listeners and storage. */
const EXIT_MARGIN_MS = 5_000;

/** Sends SIGTERM and resolves with the exit code, failing if the process is still running after grace + margin. */
async function terminate(ferry: FerryProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => ferry.child.once('exit', (code) => resolve(code)));
  const signalledAt = Date.now();
  ferry.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running ${GRACE_MS + EXIT_MARGIN_MS} ms after SIGTERM`)), GRACE_MS + EXIT_MARGIN_MS);
  });
  try {
    const code = await Promise.race([exited, late]);
    expect(Date.now() - signalledAt).toBeLessThan(GRACE_MS + EXIT_MARGIN_MS);
    return code;
  } finally {
    clearTimeout(timer);
  }
}

describe('shutdown with clients that keep connections open', () => {
  let ferry: FerryProcess | undefined;
  afterEach(async () => {
    if (ferry?.child.exitCode === null) await ferry.kill();
    ferry = undefined;
  });

  it('exits 0 within the grace while an HTTP/2 client holds a half-sent call and a gRPC Watch is open', async () => {
    ferry = await startFerry({ env: { FERRY_ROLES: 'api', FERRY_SHUTDOWN_GRACE_MS: String(GRACE_MS) } });
    const { apiKey } = await createProject(ferry.dataDir);

    // A call whose body never ends: the request is sent, the stream stays open.
    const session = http2.connect(`http://${ferry.grpcAddress}`);
    session.on('error', () => undefined);
    const stream = session.request({
      ':method': 'POST',
      ':path': '/ferry.v1.RequestService/Send',
      'content-type': 'application/grpc',
      te: 'trailers',
      authorization: `Bearer ${apiKey}`,
    });
    stream.on('error', () => undefined);
    // A gRPC frame header announcing 256 bytes, and none of them: a unary handler waits for its message.
    stream.write(Buffer.from([0, 0, 0, 1, 0]));
    await once(stream, 'ready');
    const sessionClosed = once(session, 'close');

    const client = new grpc.Client(ferry.grpcAddress, grpc.credentials.createInsecure());
    const watch = client.makeServerStreamRequest(
      '/grpc.health.v1.Health/Watch',
      (m: ReturnType<typeof create<typeof HealthCheckRequestSchema>>) => Buffer.from(toBinary(HealthCheckRequestSchema, m)),
      (b: Buffer) => b,
      create(HealthCheckRequestSchema, { service: '' }),
    );
    watch.on('error', () => undefined);
    await once(watch, 'data');

    try {
      expect(await terminate(ferry)).toBe(0);
      await sessionClosed;
    } finally {
      client.close();
      session.destroy();
    }
  });

  it('exits 0 within the grace while an HTTP/1.1 keep-alive client is in the middle of a request', async () => {
    ferry = await startFerry({ env: { FERRY_ROLES: 'api', FERRY_SHUTDOWN_GRACE_MS: String(GRACE_MS) } });
    const { apiKey } = await createProject(ferry.dataDir);
    const { hostname, port } = new URL(ferry.baseUrl);

    // One connection that finished a call and now idles, one that sent headers and half a body.
    const idle = net.connect({ host: hostname, port: Number(port) });
    idle.write(`GET /healthz HTTP/1.1\r\nHost: ferry\r\nConnection: keep-alive\r\n\r\n`);
    await once(idle, 'data');
    const midway = net.connect({ host: hostname, port: Number(port) });
    midway.on('error', () => undefined);
    await once(midway, 'connect');
    midway.write(
      `POST /send?url=https://example.com/hook HTTP/1.1\r\nHost: ferry\r\nConnection: keep-alive\r\n` +
        `Authorization: Bearer ${apiKey}\r\nContent-Length: 1000\r\n\r\nonly part of the body`,
    );
    const closed = [once(idle, 'close'), once(midway, 'close')];

    try {
      expect(await terminate(ferry)).toBe(0);
      await Promise.all(closed);
    } finally {
      idle.destroy();
      midway.destroy();
    }
  });
});

/** A TCP relay to Cassandra that, once silenced, keeps every connection open and passes nothing either way. */
class SilentCassandraRelay {
  private readonly server = net.createServer((client) => this.relay(client));
  private silent = false;
  private readonly sockets = new Set<net.Socket>();
  /** Chunks from Ferry dropped since the relay fell silent: statements that will never be answered. */
  private dropped = 0;

  async open(): Promise<number> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return (this.server.address() as net.AddressInfo).port;
  }

  silence(): void {
    this.silent = true;
  }

  async waitForDroppedStatement(deadlineMs = 10_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    while (this.dropped === 0) {
      if (Date.now() > until) throw new Error('Ferry sent nothing to Cassandra before the deadline.');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async close(): Promise<void> {
    const closed = new Promise((resolve) => this.server.close(resolve));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  private relay(client: net.Socket): void {
    const [host, port] = infra.cassandra.contactPoint.split(':') as [string, string];
    const upstream = net.connect({ host, port: Number(port) });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from);
      from.on('error', () => undefined);
      from.on('data', (chunk: Buffer) => {
        if (!this.silent) to.write(chunk);
        else if (from === client) this.dropped += 1;
      });
      from.once('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
    }
  }
}

describe.runIf(TEST_BACKEND === 'cassandra')('shutdown while Cassandra hangs', () => {
  const relay = new SilentCassandraRelay();
  let ferry: FerryProcess | undefined;
  afterEach(async () => {
    if (ferry?.child.exitCode === null) await ferry.kill();
    await relay.close();
  });

  it('exits 0 within the grace plus the margin while a call waits on a Cassandra that no longer answers', async () => {
    const port = await relay.open();
    ferry = await startFerry({
      env: { FERRY_ROLES: 'api', FERRY_SHUTDOWN_GRACE_MS: String(GRACE_MS), FERRY_CASSANDRA_CONTACT_POINTS: `127.0.0.1:${port}` },
    });
    const { apiKey } = await createProject(ferry.dataDir);
    const ready = await fetch(`${ferry.baseUrl}/readyz`);
    expect(ready.status).toBe(200);

    relay.silence();
    // A call that reaches storage and gets no answer: it is still waiting when the signal comes.
    const call = fetch(`${ferry.baseUrl}/send?url=https://example.com/hook`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: 'x',
    }).then(
      (res) => res.status,
      () => 'cut' as const,
    );
    await relay.waitForDroppedStatement();
    expect(await terminate(ferry)).toBe(0);
    expect([503, 'cut']).toContain(await call);
  });
});
