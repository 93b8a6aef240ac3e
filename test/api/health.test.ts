import { once } from 'node:events';
import net from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, eventually } from '../support/api-client.js';
import { TEST_BACKEND } from '../support/deployment.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { infra } from '../support/infra.js';

interface Probe {
  readonly status: number;
  readonly body: { status: string; failing?: string[]; checks?: Record<string, string | boolean> } | null;
}

async function probe(ferry: FerryProcess, path: string, init: RequestInit = {}): Promise<Probe> {
  const res = await fetch(`${ferry.baseUrl}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Probe['body']) : null };
}

const expectedChecks = TEST_BACKEND === 'cassandra' ? { storage: 'ok', kafka: 'ok', draining: false } : { storage: 'ok', draining: false };

describe('health endpoints', () => {
  let ferry: FerryProcess;
  beforeAll(async () => {
    ferry = await startFerry({ env: { FERRY_ROLES: 'api' } });
  });
  afterAll(async () => {
    await ferry?.stop();
  });

  it('answers liveness and readiness as plain JSON, without an API key and outside the envelope', async () => {
    expect(await probe(ferry, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await probe(ferry, '/readyz')).toEqual({ status: 200, body: { status: 'ok', failing: [], checks: expectedChecks } });
    // A wrong key changes nothing: probes never reach authentication.
    const withBadKey = await probe(ferry, '/readyz?verbose=1', { headers: { authorization: 'Bearer nope' } });
    expect(withBadKey.status).toBe(200);
    const head = await fetch(`${ferry.baseUrl}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-control')).toBe('no-store');
  });

  it('leaves other methods on the probe paths to the API', async () => {
    const res = await new Api(ferry.baseUrl, 'fry_unused').call('POST', '/readyz', { auth: null });
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('ROUTE_NOT_FOUND');
  });
});

describe.runIf(TEST_BACKEND === 'embedded')('readiness while another process holds the database write lock', () => {
  let ferry: FerryProcess;
  beforeAll(async () => {
    ferry = await startFerry({ env: { FERRY_ROLES: 'api' } });
  });
  afterAll(async () => {
    await ferry?.stop();
  });

  it('answers 503 naming storage while the lock is held, and 200 again once it is released', async () => {
    expect((await probe(ferry, '/readyz')).status).toBe(200);
    const holder = new Database(join(ferry.dataDir, 'ferry.db'));
    try {
      holder.prepare('BEGIN IMMEDIATE').run();
      const down = await eventually(async () => {
        const p = await probe(ferry, '/readyz');
        return p.status === 503 ? p : undefined;
      }, 20_000);
      expect(down.body).toEqual({ status: 'unavailable', failing: ['storage'], checks: { storage: 'timeout', draining: false } });
      expect((await probe(ferry, '/healthz')).status).toBe(200);
      holder.prepare('ROLLBACK').run();
      await eventually(async () => ((await probe(ferry, '/readyz')).status === 200 ? true : undefined), 20_000);
    } finally {
      holder.close();
    }
  });
});

/** A TCP relay to Cassandra that the test can cut (every connection dropped, nothing listening) and restore. */
class CassandraRelay {
  private readonly sockets = new Set<net.Socket>();
  private server: net.Server | null = null;
  port = 0;

  async open(): Promise<void> {
    const [host, port] = infra.cassandra.contactPoint.split(':') as [string, string];
    const server = net.createServer((client) => {
      const upstream = net.connect({ host, port: Number(port) });
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    const closed = server ? new Promise((resolve) => server.close(resolve)) : Promise.resolve();
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

describe.runIf(TEST_BACKEND === 'cassandra')('readiness while Cassandra stops answering', () => {
  const relay = new CassandraRelay();
  let ferry: FerryProcess;
  beforeAll(async () => {
    await relay.open();
    ferry = await startFerry({ env: { FERRY_ROLES: 'api', FERRY_CASSANDRA_CONTACT_POINTS: `127.0.0.1:${relay.port}` } });
  });
  afterAll(async () => {
    await ferry?.stop();
    await relay.cut();
  });

  it('answers 503 naming storage while its contact point is gone, and 200 again once it is back', async () => {
    expect((await probe(ferry, '/readyz')).status).toBe(200);
    await relay.cut();
    const down = await eventually(async () => {
      const p = await probe(ferry, '/readyz');
      return p.status === 503 ? p : undefined;
    }, 30_000);
    expect(down.body).toMatchObject({ status: 'unavailable', failing: ['storage'], checks: { kafka: 'ok', draining: false } });
    expect(['timeout', 'failed']).toContain(down.body?.checks?.storage);
    expect((await probe(ferry, '/healthz')).status).toBe(200);
    await relay.open();
    await eventually(async () => ((await probe(ferry, '/readyz')).status === 200 ? true : undefined), 30_000);
  });
});

describe('readiness while draining', () => {
  const GRACE_MS = 3_000;
  let dest: Destination;
  let ferry: FerryProcess;
  let api: Api;
  let output = '';
  beforeAll(async () => {
    dest = await startDestination();
    // The destination answers only when the attempt is given up on: it stays in flight for the whole grace.
    dest.on('/slow', async ({ signal }) => {
      if (!signal.aborted) await once(signal, 'abort');
    });
    ferry = await startFerry({
      env: {
        FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
        FERRY_DELIVERY_CA_FILE: dest.certFile,
        FERRY_SHUTDOWN_GRACE_MS: String(GRACE_MS),
        FERRY_AUTH_CACHE_MS: '0',
      },
    });
    ferry.followOutput((text) => (output += text));
    api = new Api(ferry.baseUrl, (await createProject(ferry.dataDir)).apiKey);
  });
  afterAll(async () => {
    if (ferry?.child.exitCode === null) await ferry.kill();
    await dest?.close();
  });

  it('answers /readyz 503 draining from SIGTERM until exit, /healthz 200, and refuses new API calls', async () => {
    dest.on('/fast', replies.status(200));
    expect((await api.send({ url: `${dest.url}/slow` })).status).toBe(202);
    await dest.waitForRequests('/slow', 1, 20_000);

    const exited = new Promise<number | null>((resolve) => ferry.child.once('exit', (code) => resolve(code)));
    let gone = false;
    void exited.then(() => (gone = true));
    ferry.child.kill('SIGTERM');
    const signalledAt = Date.now();

    const readyAnswers: Probe[] = [];
    const liveAnswers: number[] = [];
    const refusals: Array<{ status: number; code: string | undefined; retryAfter: string | null; requestId: string | null }> = [];
    while (!gone) {
      try {
        readyAnswers.push(await probe(ferry, '/readyz'));
        liveAnswers.push((await probe(ferry, '/healthz')).status);
        if (refusals.length === 0) {
          const res = await api.send({ url: `${dest.url}/fast` });
          refusals.push({ status: res.status, code: res.body.error?.code, retryAfter: res.headers.get('retry-after'), requestId: res.body.request_id });
          const connect = await fetch(`${ferry.baseUrl}/ferry.v1.RequestService/ListRequests`, {
            method: 'POST',
            headers: { authorization: `Bearer ${api.apiKey}`, 'content-type': 'application/json' },
            body: '{}',
          });
          const body = (await connect.json()) as { code: string };
          refusals.push({ status: connect.status, code: body.code, retryAfter: connect.headers.get('retry-after'), requestId: connect.headers.get('ferry-request-id') });
        }
      } catch {
        // The process closed its listeners on its way out.
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(GRACE_MS + 5_000);
    // The signal may still be on its way when the first probe arrives; from the first draining answer on, all are.
    const draining = readyAnswers.slice(readyAnswers.findIndex((a) => a.status !== 200));
    expect(draining.length).toBeGreaterThan(0);
    for (const answer of draining) {
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ status: 'draining', failing: ['draining'], checks: { draining: true } });
    }
    expect(liveAnswers.every((status) => status === 200)).toBe(true);
    // A refusal names its reason, says when to retry, and is logged at error like every 5xx.
    expect(refusals).toEqual([
      { status: 503, code: 'SHUTTING_DOWN', retryAfter: '1', requestId: expect.any(String) },
      { status: 503, code: 'unavailable', retryAfter: '1', requestId: expect.any(String) },
    ]);
    const logged = output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const { requestId } of refusals) {
      expect(logged.find((l) => l.request_id === requestId)).toMatchObject({ level: 'error', msg: 'api call failed', status: 503, code: 'SHUTTING_DOWN' });
    }
  });
});
