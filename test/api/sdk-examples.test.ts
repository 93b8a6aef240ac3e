import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigningSecret, signPayload } from '../../src/domain/delivery/signature.js';
import { Api, eventually } from '../support/api-client.js';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { TEST_BACKEND } from '../support/deployment.js';
import { startDestination, waitFor, type ReceivedRequest } from '../support/destination.js';
import { useFerry } from '../support/fixture.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { readmeExamples, runnableSdkExample } from '../support/readme-examples.js';
import { packAndInstallSdk, type InstalledSdk, type Run } from '../support/sdk-package.js';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = join(ROOT, 'sdk/examples');
const SDK_README = join(ROOT, 'sdk/README.md');
// The README's blocks are backend-agnostic: they run once, with the embedded backend.
const README_RUNS = TEST_BACKEND === 'embedded';
/** The README's TypeScript blocks, numbered in order; the receivers among them answer real deliveries below. */
const README_BLOCKS = readmeExamples(SDK_README, 'ts').map((block, i) => ({ ...block, name: `${block.section} #${i}` }));
const isReceiver = (code: string) => /\.listen\(|^export async function POST/m.test(code);

/**
 * What a README block prints, for the blocks whose output says something: a pattern of its code and one of its
 * standard output. Every other block must simply run to its end without a word on stderr.
 */
const README_OUTPUTS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/const request = await ferry\.requests\.get\(accepted\.id\)/, /^req_\S+ queued\nqueued 0\n$/],
  [/ferry\.requests\.batch\(/, /^queued 0\n$/],
  [/ferry\.requests\.replay\('req_…'\)/, /^cancellation_requested req_\S+ req_\S+\n$/],
  [/ferry\.schedules\.preview\(/, /^\[ '2027-03-14T07:00:00\.000Z', '2027-03-15T06:30:00\.000Z' \]\n2027-03-15T06:30:00\.000Z none\n$/],
  [/JSON\.stringify\(accepted\)/, /^[0-9a-f-]{36}\n\{"id":"req_[^\n]*\}\n$/],
  // No request has failed on a server that does not deliver; whatever schedules other tests left are listed.
  [/ferry\.requests\.list\(\{ status: 'failed', limit: 50 \}\)/, /^0 null\n\d+ null\n/],
  [/createGrpcTransport/, /^req_\S+\n$/],
];

// Examples are TypeScript; tsx's loader runs them in one node process, as `npx tsx example.ts` would.
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

interface Held {
  id: string;
  status: string;
  url: string;
  method: string;
  content_type: string;
  max_attempts: number;
  metadata: Record<string, string>;
  replayed_from_request_id: string | null;
  attempts: unknown[];
}

// Every example in sdk/examples, run as a user would: against @ferry/sdk installed from its packed tarball.
describe('the SDK examples', () => {
  const fixture = useFerry();
  let sdk: InstalledSdk;

  beforeAll(async () => {
    sdk = await packAndInstallSdk();
    sdk.linkFromRepo('@bufbuild/protobuf', '@connectrpc/connect', '@connectrpc/connect-node', '@grpc/grpc-js', '@types/node');
    sdk.write('examples/package.json', '{ "type": "module" }\n');
    for (const file of readdirSync(EXAMPLES)) sdk.write(`examples/${file}`, readFileSync(join(EXAMPLES, file), 'utf8'));
  }, 240_000);
  afterAll(() => sdk?.remove());

  function example(name: string, opts: { args?: string[]; apiKey?: string; env?: Record<string, string> } = {}): Promise<Run> {
    return sdk.run(process.execPath, ['--import', TSX_LOADER, `examples/${name}.ts`, ...(opts.args ?? [])], {
      FERRY_BASE_URL: fixture.ferry.baseUrl,
      FERRY_API_KEY: opts.apiKey ?? fixture.apiKey,
      FERRY_GRPC_URL: `http://${fixture.ferry.grpcAddress}`,
      ...opts.env,
    });
  }

  /** The example's stdout lines, once it exited cleanly. */
  async function lines(name: string, opts: { args?: string[]; apiKey?: string; env?: Record<string, string> } = {}): Promise<string[]> {
    const run = await example(name, opts);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return run.stdout.trimEnd().split('\n');
  }

  async function held(id: string, api: Api = fixture.api): Promise<Held> {
    const res = await api.call<Held>('GET', `/requests/${id}`);
    expect(res.status).toBe(200);
    return res.body.data;
  }

  async function everyRequest(api: Api): Promise<Held[]> {
    return (await api.call<{ items: Held[] }>('GET', '/requests?limit=100')).body.data.items;
  }

  it('covers every example in sdk/examples', () => {
    const tested = ['send', 'create-idempotent', 'batch', 'list-all', 'cancel', 'replay', 'schedules', 'receiver', 'connect-grpc', 'grpc-js'];
    expect(readdirSync(EXAMPLES).map((f) => f.replace(/\.ts$/, '')).sort()).toEqual([...tested].sort());
  });

  it('read only environment variables that the README or their own Run line names', () => {
    const readme = readFileSync(SDK_README, 'utf8');
    const section = readme.slice(readme.indexOf('## Examples'));
    const unnamed: string[] = [];
    for (const file of readdirSync(EXAMPLES)) {
      const source = readFileSync(join(EXAMPLES, file), 'utf8');
      const runLine = /^\/\/ Run: .*$/m.exec(source)?.[0] ?? '';
      for (const [, name] of source.matchAll(/process\.env\.(\w+)/g)) {
        if (!section.includes(`\`${name}\``) && !runLine.includes(`${name}=`)) unnamed.push(`${file}: ${name}`);
      }
    }
    expect(unnamed).toEqual([]);
  });

  it('type-check against the installed package', async () => {
    const files = readdirSync(EXAMPLES).map((f) => `examples/${f}`);
    // The DOM library for @connectrpc/connect's own types (HeadersInit); the SDK itself needs only Node's.
    const options = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom', '--types', 'node'];
    const run = await sdk.tsc([...options, ...files]);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(0);
  });

  it('send: a quick send with its options', async () => {
    const out = await lines('send');
    expect(out).toHaveLength(1);
    const [, id, at, callId] = /^accepted (req_\S+) scheduled at (\S+) \(call (\S+)\)$/.exec(out[0]!)!;
    expect(Date.parse(at!)).toBeGreaterThan(Date.now());
    expect(callId).not.toBe(id);
    expect(await held(id!)).toMatchObject({ status: 'scheduled', url: 'https://example.com/webhooks/orders', method: 'POST', content_type: 'application/json', max_attempts: 6 });
  });

  it('send: delivers where DESTINATION_URL says when it is set', async () => {
    const out = await lines('send', { env: { DESTINATION_URL: 'https://example.com/elsewhere' } });
    const id = /^accepted (req_\S+) /.exec(out[0]!)![1]!;
    expect((await held(id)).url).toBe('https://example.com/elsewhere');
  });

  it('create-idempotent: the same key answers the same request, other input under it is a conflict', async () => {
    const project = await fixture.newProject();
    const out = await lines('create-idempotent', { args: ['A-1001'], apiKey: project.apiKey });
    const id = /^created (req_\S+)$/.exec(out[0]!)![1]!;
    expect(out.slice(1)).toEqual([`same key, same input: ${id}`, 'same key, other input: 409 IDEMPOTENCY_KEY_REUSED']);
    expect((await everyRequest(project.api)).map((r) => r.id)).toEqual([id]);
    expect(await held(id, project.api)).toMatchObject({ metadata: { order: 'A-1001' }, max_attempts: 8 });
  });

  it('batch: acceptances in submitted order, and a refused batch creates nothing', async () => {
    const project = await fixture.newProject();
    const out = await lines('batch', { apiKey: project.apiKey });
    expect(out).toHaveLength(4);
    const ids = out.slice(0, 3).map((line, i) => new RegExp(`^${['A-100', 'B-200', 'C-300'][i]} (req_\\S+) scheduled$`).exec(line)![1]!);
    expect(out[3]).toBe('refused INVALID_URL at requests[1].url');
    expect((await everyRequest(project.api)).map((r) => r.id).sort()).toEqual([...ids].sort());
  });

  it('list-all: one page with await, every page with for await', async () => {
    const project = await fixture.newProject();
    for (let i = 0; i < 5; i += 1) expect((await project.api.create({ url: 'https://example.com/list', body: { i } })).status).toBe(202);
    const out = await lines('list-all', { apiKey: project.apiKey });
    expect(out).toEqual(['first page: 2 items, more: true', 'total 5', 'queued 5']);
  });

  it('cancel: stops a scheduled request', async () => {
    const out = await lines('cancel');
    const id = /^scheduled (req_\S+) for \S+$/.exec(out[0]!)![1]!;
    expect(out.slice(1)).toEqual(['cancel: cancellation_requested', 'cancel again: cancelled', 'now cancelled, 0 attempts']);
    expect((await held(id)).status).toBe('cancelled');
  });

  it('replay: refused while active, a new request once cancelled', async () => {
    const out = await lines('replay');
    expect(out[0]).toBe('replay of an active request: REQUEST_ACTIVE');
    const [, original, replay] = /^replayed (req_\S+) as (req_\S+) \(queued, from (req_\S+)\)$/.exec(out[1]!)!;
    expect(out[1]).toContain(`from ${original})`);
    expect((await held(original!)).status).toBe('cancelled');
    expect(await held(replay!)).toMatchObject({ status: 'queued', replayed_from_request_id: original });
  });

  it('schedules: preview, create, pause, resume, rename, list and delete', async () => {
    const out = await lines('schedules', { args: ['examples-test'] });
    expect(out.slice(0, 3)).toEqual([
      'would run at 2027-03-14T07:00:00.000Z',
      'would run at 2027-03-15T06:30:00.000Z',
      'would run at 2027-03-16T06:30:00.000Z',
    ]);
    const id = /^created (sch_\S+) active, next run \S+$/.exec(out[3]!)![1]!;
    expect(out.slice(4, 7)).toEqual(['paused: paused', 'resumed: active', 'renamed: nightly report (v2)']);
    expect(out).toContain(`listed ${id} nightly report (v2)`);
    expect(out.at(-1)).toBe(`deleted ${id}`);
    expect((await fixture.api.call('GET', `/schedules/${id}`)).status).toBe(404);
  });

  it('connect-grpc: a Connect client over gRPC with the proto descriptors', async () => {
    const out = await lines('connect-grpc');
    const id = /^accepted (req_\S+)$/.exec(out[0]!)![1]!;
    expect(out.slice(1)).toEqual(['status SCHEDULED, 0 attempts', 'unknown id: NotFound']);
    expect(await held(id)).toMatchObject({ status: 'scheduled', content_type: 'application/json', max_attempts: 4 });
  });

  it('grpc-js: a plain @grpc/grpc-js client built from grpcJsServiceDefinition', async () => {
    const out = await lines('grpc-js');
    const id = /^accepted (req_\S+)$/.exec(out[0]!)![1]!;
    expect(out.slice(1)).toEqual(['status SCHEDULED', 'unknown id: NOT_FOUND']);
    expect(await held(id)).toMatchObject({ status: 'scheduled', url: 'https://example.com/webhooks/invoices' });
  });

  /** Runs a README block as a program in the scratch project, with the variables its placeholders became. */
  function readmeBlock(block: { code: string; name: string }, env: Record<string, string>): Promise<Run> {
    const file = sdk.write(`readme-run/block-${block.name.replace(/\W+/g, '-')}.mts`, runnableSdkExample(block.code));
    return sdk.run(process.execPath, ['--import', TSX_LOADER, file], {
      FERRY_BASE_URL: fixture.ferry.baseUrl,
      FERRY_API_KEY: fixture.apiKey,
      FERRY_GRPC_URL: `http://${fixture.ferry.grpcAddress}`,
      FERRY_GRPC_TARGET: fixture.ferry.grpcAddress,
      ...env,
    });
  }

  it('every block of the package README is run: its TypeScript here, its install by the package test', () => {
    expect(readmeExamples(SDK_README, 'sh').map((b) => b.section)).toEqual(['Install']);
    expect(README_BLOCKS.length).toBeGreaterThanOrEqual(10);
    expect(README_BLOCKS.filter((b) => isReceiver(b.code)).map((b) => b.section)).toEqual(['Verifying deliveries', 'Verifying deliveries']);
    for (const [code] of README_OUTPUTS) expect(README_BLOCKS.filter((b) => code.test(b.code)), String(code)).toHaveLength(1);
  });

  it.runIf(README_RUNS).each(README_BLOCKS.filter((b) => !isReceiver(b.code)).map((b) => [b.name, b] as const))(
    'README block %s runs against the server',
    async (_name, block) => {
      // A request of its own to act on, where the block names one (cancel, replay, errors, gRPC).
      const waiting = await fixture.api.create({ url: 'https://example.com/readme', delay: '1h' });
      const run = await readmeBlock(block, { REQ_ID: (waiting.body.data as { id: string }).id });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const output = README_OUTPUTS.find(([code]) => code.test(block.code))?.[1];
      if (output !== undefined) expect(run.stdout).toMatch(output);
    },
  );

  describe('receiver, against real deliveries', () => {
    const certificate = sharedSelfSignedCertificate();
    let delivering: FerryProcess;
    let api: Api;
    let secret: string;
    let receiver: ChildProcess;
    let output = '';
    let port: number;

    beforeAll(async () => {
      delivering = await startFerry({
        env: { FERRY_ROLES: 'api,delivery', FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: certificate.certFile, FERRY_AUTH_CACHE_MS: '0' },
      });
      const project = await createProject(delivering.dataDir);
      api = new Api(delivering.baseUrl, project.apiKey);
      secret = project.signingSecret;
      receiver = spawn(process.execPath, ['--import', TSX_LOADER, 'examples/receiver.ts'], {
        cwd: sdk.dir,
        env: { ...process.env, FERRY_SIGNING_SECRET: secret, PORT: '0', TLS_CERT_FILE: certificate.certFile, TLS_KEY_FILE: certificate.keyFile },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      receiver.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await waitFor(() => /listening on port \d+ \(https\)/.test(output), 'the receiver to listen', 30_000);
      port = Number(/listening on port (\d+)/.exec(output)![1]);
    }, 120_000);
    afterAll(async () => {
      if (receiver && receiver.exitCode === null) {
        const exited = new Promise((done) => receiver.once('exit', done));
        receiver.kill('SIGTERM');
        await exited;
      }
      await delivering?.stop();
    });

    async function delivered(id: string): Promise<void> {
      await eventually(async () => ((await held(id, api)).status === 'succeeded' ? true : undefined), 15_000);
    }

    /** One delivery exactly as Ferry sent it: its ID, its signed headers and its body. */
    async function captureDelivery(): Promise<{ id: string; headers: Record<string, string>; body: Buffer }> {
      const destination = await startDestination({ certificate });
      try {
        const accepted = await api.create({ url: `${destination.url}/capture`, body: { order: 7 } });
        const [received] = await destination.waitForRequests('/capture', 1, 15_000) as ReceivedRequest[];
        const headers = Object.fromEntries(Object.entries(received!.headers).filter(([name]) => /^(service-|content-type$)/.test(name)));
        return { id: (accepted.body.data as { id: string }).id, headers, body: received!.body };
      } finally {
        await destination.close();
      }
    }

    it.runIf(README_RUNS)("the README's node:http receiver answers 204 to a real delivery and 400 to a forged one", async () => {
      const delivery = await captureDelivery();
      const block = README_BLOCKS.find((b) => /\.listen\(/.test(b.code))!;
      const readmePort = await freePort();
      const file = sdk.write('readme-run/node-receiver.mts', runnableSdkExample(block.code));
      const child = spawn(process.execPath, ['--import', TSX_LOADER, file], {
        cwd: sdk.dir,
        env: { ...process.env, FERRY_SIGNING_SECRET: secret, PORT: String(readmePort) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let printed = '';
      child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      const exited = new Promise((done) => child.once('exit', done));
      try {
        const post = (body: Buffer) => eventually(() => plainPost(readmePort, delivery.headers, body).catch(() => undefined), 30_000);
        expect(await post(delivery.body)).toBe(204);
        expect(await post(Buffer.from('{"order":666}'))).toBe(400);
        expect(printed).toBe(`delivery ${delivery.id}, attempt 1 { order: 7 }\n`);
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    });

    it.runIf(README_RUNS)("the README's Fetch-style handler answers 204 to a real delivery and 400 to a forged one", async () => {
      const delivery = await captureDelivery();
      const block = README_BLOCKS.find((b) => /^export async function POST/m.test(b.code))!;
      const run = await readmeBlock(block, {
        FERRY_SIGNING_SECRET: secret,
        DELIVERY: JSON.stringify({ headers: delivery.headers, body: delivery.body.toString('base64') }),
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`verified ${delivery.id}\nanswered 204\nanswered 400\n`);
    });

    /** Posts straight to the receiver, as someone other than Ferry could. */
    function post(headers: Record<string, string>, body: string): Promise<number> {
      return new Promise((done, fail) => {
        const req = httpsRequest({ host: '127.0.0.1', port, path: '/hook', method: 'POST', headers, ca: certificate.cert }, (res) => {
          res.resume();
          res.once('end', () => done(res.statusCode ?? 0));
        });
        req.once('error', fail);
        req.end(body);
      });
    }

    it('accepts JSON and binary deliveries signed with the project secret, and Ferry records the 204', async () => {
      const json = await api.create({ url: `https://127.0.0.1:${port}/orders`, body: { order: 42 } });
      const jsonId = (json.body.data as { id: string }).id;
      const binary = await api.send({ url: `https://127.0.0.1:${port}/files` }, new Uint8Array([0, 1, 2, 255, 254]), { 'content-type': 'application/octet-stream' });
      const binaryId = (binary.body.data as { id: string }).id;
      await delivered(jsonId);
      await delivered(binaryId);
      expect(output).toContain(`verified ${jsonId} attempt 1 json {"order":42}\n`);
      expect(output).toContain(`verified ${binaryId} attempt 1 5 bytes\n`);
      const attempts = (await held(jsonId, api)).attempts as Array<{ response_status_code: number }>;
      expect(attempts.map((a) => a.response_status_code)).toEqual([204]);
    });

    it('refuses a forged signature, a stale timestamp and a missing signature with 400', async () => {
      const now = Math.floor(Date.now() / 1000);
      const body = '{"order":666}';
      const signed = (secretBytes: Uint8Array, timestamp: number) => ({
        'content-type': 'application/json',
        'service-request-id': 'req_forged',
        'service-attempt': '1',
        'service-timestamp': String(timestamp),
        'service-signature': signPayload([secretBytes], 'req_forged', timestamp, new TextEncoder().encode(body)),
      });
      const projectSecret = new Uint8Array(Buffer.from(secret.slice('whsec_'.length), 'base64'));
      expect(await post(signed(newSigningSecret().secret, now), body)).toBe(400);
      expect(await post(signed(projectSecret, now - 3600), body)).toBe(400);
      const { 'service-signature': _dropped, ...unsigned } = signed(projectSecret, now);
      expect(await post(unsigned, body)).toBe(400);
      await waitFor(() => (output.match(/^refused /gm) ?? []).length === 3, 'three refusals');
      expect(output).toMatch(/^refused NoMatchingSignatureError: /m);
      expect(output).toMatch(/^refused StaleTimestampError: /m);
      expect(output).toMatch(/^refused MissingHeaderError: The Service-Signature header is missing/m);
      // The genuine article still passes, once.
      expect(await post(signed(projectSecret, now), body)).toBe(204);
      expect(await post(signed(projectSecret, now), body)).toBe(204);
      await waitFor(() => output.includes('duplicate req_forged attempt 1'), 'the duplicate to be noticed');
      expect(output).toContain('verified req_forged attempt 1 json {"order":666}');
    });
  });
});

/** A port nothing listens on now, for a program that is told where to listen. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** Posts over plain HTTP to a local receiver and resolves with the status it answered. */
function plainPost(port: number, headers: Record<string, string>, body: Buffer): Promise<number> {
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/hook', method: 'POST', headers }, (res) => {
      res.resume();
      res.once('end', () => done(res.statusCode ?? 0));
    });
    req.once('error', fail);
    req.end(body);
  });
}
