import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFerry } from '../support/fixture.js';
import { packAndInstallSdk, type InstalledSdk } from '../support/sdk-package.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SDK_MANIFEST = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../sdk/package.json'), 'utf8')) as { version: string };
const ENTRY_POINTS = ['.', './webhooks', './proto'] as const;

// A user's program, the same in both module systems apart from how it loads the package: one real call, one
// refused call, a signature check and the proto descriptors.
const PROGRAM = `
const secret = Buffer.from(process.env.SECRET_B64, 'base64');
const ferry = new Ferry({ baseUrl: process.env.FERRY_BASE_URL, apiKey: process.env.FERRY_API_KEY });
const run = async () => {
  const accepted = await ferry.requests.create({ url: 'https://example.com/from-' + process.env.FLAVOUR, body: { flavour: process.env.FLAVOUR } });
  const detail = await ferry.requests.get(accepted.id);
  const refused = await ferry.requests.get('req_00000000000000000000000000').then(() => 'resolved', (e) => [e.constructor.name, e instanceof FerryApiError, e.status, e.code].join(' '));
  const body = '{"n":1}';
  const ts = Math.floor(Date.now() / 1000);
  const signature = 'v1,' + createHmac('sha256', secret).update(accepted.id + '.' + ts + '.' + body).digest('base64');
  const headers = { 'service-request-id': accepted.id, 'service-attempt': '1', 'service-timestamp': String(ts), 'service-signature': signature };
  const verified = await verifyFromWebhooks({ secret: 'whsec_' + process.env.SECRET_B64, headers, body });
  const tampered = await verifyFromRoot({ secret: 'whsec_' + process.env.SECRET_B64, headers, body: '{"n":2}' }).catch((e) => e instanceof NoMatchingSignatureError);
  const send = grpcJsServiceDefinition(RequestService).send;
  const encoded = send.requestSerialize(create(SendRequestSchema, { url: 'https://example.com/x', body: new Uint8Array([1, 2]) }));
  console.log(JSON.stringify({
    version: SDK_VERSION,
    id: accepted.id,
    callRequestId: accepted.requestId,
    keys: Object.keys(accepted).sort(),
    status: detail.status,
    refused,
    verified: verified.requestId === accepted.id && verified.attempt === 1,
    tampered,
    sendPath: send.path,
    roundTrip: send.requestDeserialize(encoded).url,
    isBuffer: Buffer.isBuffer(encoded),
  }));
};
run().catch((e) => { console.error(e); process.exitCode = 1; });
`;

const ESM = `
import { createHmac } from 'node:crypto';
import { Ferry, FerryApiError, SDK_VERSION, verifyDelivery as verifyFromRoot } from '@ferry/sdk';
import { verifyDelivery as verifyFromWebhooks, NoMatchingSignatureError } from '@ferry/sdk/webhooks';
import { RequestService, SendRequestSchema, grpcJsServiceDefinition } from '@ferry/sdk/proto';
import { create } from '@bufbuild/protobuf';
${PROGRAM}`;

const CJS = `
const { createHmac } = require('node:crypto');
const { Ferry, FerryApiError, SDK_VERSION, verifyDelivery: verifyFromRoot } = require('@ferry/sdk');
const { verifyDelivery: verifyFromWebhooks, NoMatchingSignatureError } = require('@ferry/sdk/webhooks');
const { RequestService, SendRequestSchema, grpcJsServiceDefinition } = require('@ferry/sdk/proto');
const { create } = require('@bufbuild/protobuf');
if (require('@ferry/sdk/package.json').version !== SDK_VERSION) throw new Error('package.json and SDK_VERSION disagree');
${PROGRAM}`;

// Type-level use of every entry point; each @ts-expect-error fails the check if the types resolved to nothing.
const TYPES = `
import {
  Ferry, FerryApiError, NotFoundError, verifyDelivery,
  type Acceptance, type CronTiming, type FerryErrorCode, type IntervalTiming, type RequestStatus, type Timing,
} from '@ferry/sdk';
import { MissingHeaderError, verifyDelivery as verify, type VerifiedDelivery } from '@ferry/sdk/webhooks';
import { RequestService, grpcJsServiceDefinition, type SendRequest } from '@ferry/sdk/proto';
import { makeGenericClientConstructor } from '@grpc/grpc-js';

export async function use(ferry: Ferry): Promise<Acceptance> {
  const accepted = await ferry.requests.create({ url: 'https://example.com/hook', body: { n: 1 } }, { idempotencyKey: 'k' });
  const requestId: string = accepted.requestId;
  // @ts-expect-error the API's field names, not camelCase
  accepted.deliverAt;
  const code: FerryErrorCode = 'NOT_FOUND';
  const known: boolean = new NotFoundError({ status: 404, code, message: '', field: null, requestId, headers: new Headers() }) instanceof FerryApiError;
  const verified: VerifiedDelivery = await verify({ secret: 'whsec_x', headers: {}, body: new Uint8Array() });
  const same: typeof verify = verifyDelivery;
  // @ts-expect-error the body is raw bytes or text, never parsed JSON
  await verify({ secret: 'whsec_x', headers: {}, body: { parsed: true } });
  const header: string = new MissingHeaderError('Service-Timestamp').header;
  const message: Pick<SendRequest, 'url'> = { url: 'https://example.com' };
  const Client = makeGenericClientConstructor(grpcJsServiceDefinition(RequestService), 'RequestService');
  void [known, verified, same, header, message, Client];
  return accepted;
}
// @ts-expect-error apiKey is required
new Ferry({ baseUrl: 'https://ferry.example.com' });

// What the server always sets is typed without null, so it is used as it comes; a timing is a cron or an interval.
export async function alwaysSet(ferry: Ferry): Promise<Date[]> {
  const accepted = await ferry.requests.create({ url: 'https://example.com/hook' });
  const detail = await ferry.requests.get(accepted.id);
  const times = [new Date(accepted.created_at), new Date(detail.created_at), new Date(detail.updated_at)];
  const statuses: RequestStatus[] = [accepted.status, detail.status];
  const outcomes: string[] = detail.attempts.map((a) => a.status);
  for (const a of await ferry.requests.attempts(accepted.id)) times.push(new Date(a.started_at), new Date(a.completed_at));
  for await (const summary of ferry.requests.list()) {
    times.push(new Date(summary.created_at));
    statuses.push(summary.status);
  }
  const page = await ferry.requests.list();
  times.push(new Date(page.history_cutoff_at));
  const cancelled: 'cancellation_requested' | 'cancelled' = (await ferry.requests.cancel(accepted.id)).status;

  const timing: Timing = { type: 'cron', expression: '0 9 * * 1', timezone: 'Europe/Berlin' };
  const hourly: IntervalTiming = { type: 'interval', every_seconds: 3600 };
  const created = await ferry.schedules.create({ name: 'n', timing, request: { url: 'https://example.com/hook' } });
  const schedule = await ferry.schedules.get(created.id);
  times.push(new Date(created.created_at), new Date(schedule.created_at), new Date(schedule.updated_at));
  const active: 'active' | 'paused' | 'ended' = schedule.status;
  const destination: string = schedule.request.url;
  const retries: number = schedule.request.retry;
  const zone: string = schedule.timing.type === 'cron' ? schedule.timing.timezone : \`every \${schedule.timing.every_seconds} s\`;
  // A timing read back is given again as it is.
  await ferry.schedules.update(created.id, { timing: schedule.timing });
  const cron: CronTiming | undefined = schedule.timing.type === 'cron' ? schedule.timing : undefined;
  // @ts-expect-error a cron timing takes no every_seconds (and needs its expression and zone)
  const mixed: Timing = { type: 'cron', every_seconds: 5 };
  // @ts-expect-error an interval timing needs every_seconds
  const empty: Timing = { type: 'interval' };
  // @ts-expect-error an interval timing takes no timezone
  await ferry.schedules.preview({ type: 'interval', every_seconds: 60, timezone: 'UTC' });
  void [statuses, outcomes, cancelled, hourly, active, destination, retries, zone, cron, mixed, empty];
  return times;
}
`;

describe('@ferry/sdk as an npm package', () => {
  const fixture = useFerry();
  let sdk: InstalledSdk;

  beforeAll(async () => {
    sdk = await packAndInstallSdk();
    // The optional peer dependency of @ferry/sdk/proto; the gRPC clients and Node's types for the type checks.
    sdk.linkFromRepo('@bufbuild/protobuf', '@grpc/grpc-js', '@connectrpc/connect', '@connectrpc/connect-node', '@types/node');
  }, 240_000);
  afterAll(() => sdk?.remove());

  it('packs the two builds with their types, the README and package.json, and nothing else', () => {
    const files = sdk.packedFiles;
    for (const build of ['esm', 'cjs']) {
      for (const entry of ['index', 'webhooks/index', 'proto/index', 'schema', 'gen/ferry/v1/request_service_pb']) {
        expect(files).toContain(`dist/${build}/${entry}.d.ts`);
        if (entry !== 'schema') expect(files).toContain(`dist/${build}/${entry}.js`);
      }
    }
    expect(files).toContain('dist/cjs/package.json');
    expect(files).toContain('README.md');
    expect(files).toContain('package.json');
    const outsideDist = files.filter((f) => !f.startsWith('dist/'));
    expect(outsideDist.sort()).toEqual(['README.md', 'package.json']);
    expect(files.filter((f) => /(^|\/)(src|test|examples|scripts)\/|\.test\.|(?<!\.d)\.ts$/.test(f))).toEqual([]);
  });

  it('declares both module systems for every entry point, no dependencies and an optional protobuf peer', () => {
    const manifest = sdk.manifest as unknown as Record<string, unknown> & { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports).sort()).toEqual([...ENTRY_POINTS, './package.json'].sort());
    for (const entry of ENTRY_POINTS) {
      const conditions = manifest.exports[entry] as Record<string, { types: string; default: string }>;
      expect(Object.keys(conditions)).toEqual(['import', 'require']);
      for (const condition of ['import', 'require'] as const) {
        expect(Object.keys(conditions[condition]!)).toEqual(['types', 'default']);
        for (const path of Object.values(conditions[condition]!)) expect(sdk.packedFiles).toContain(path.replace(/^\.\//, ''));
      }
    }
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.engines).toEqual({ node: '>=20' });
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toEqual({ '@bufbuild/protobuf': '^2.13.0' });
    expect(manifest.peerDependenciesMeta).toEqual({ '@bufbuild/protobuf': { optional: true } });
    expect(JSON.parse(readFileSync(join(sdk.dir, 'node_modules/@ferry/sdk/dist/cjs/package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
  });

  describe.each([
    ['ES module', 'program.mjs', ESM],
    ['CommonJS', 'program.cjs', CJS],
  ])('used from %s', (flavour, file, source) => {
    it('imports every entry point, calls the live server, verifies a signature and encodes a proto message', async () => {
      const secret = randomBytes(32).toString('base64');
      const script = sdk.write(file, source);
      const run = await sdk.node(script, {
        FERRY_BASE_URL: fixture.ferry.baseUrl,
        FERRY_API_KEY: fixture.apiKey,
        SECRET_B64: secret,
        FLAVOUR: flavour.replace(' ', '-'),
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const out = JSON.parse(run.stdout) as Record<string, unknown>;
      const held = await fixture.api.call<{ status: string; url: string }>('GET', `/requests/${String(out.id)}`);
      expect(held.status).toBe(200);
      expect(held.body.data.url).toBe(`https://example.com/from-${flavour.replace(' ', '-')}`);
      expect(out).toEqual({
        version: SDK_MANIFEST.version,
        id: expect.stringMatching(/^req_/),
        callRequestId: expect.any(String),
        keys: expect.not.arrayContaining(['requestId']),
        status: held.body.data.status,
        refused: 'NotFoundError true 404 NOT_FOUND',
        verified: true,
        tampered: true,
        sendPath: '/ferry.v1.RequestService/Send',
        roundTrip: 'https://example.com/x',
        isBuffer: true,
      });
    });
  });

  it('installs without an install-time script, so npm has nothing to warn about', () => {
    const scripts = Object.keys((sdk.manifest.scripts ?? {}) as Record<string, string>);
    expect(scripts.filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([]);
    expect(sdk.installOutput).not.toMatch(/install.?scripts?/i);
  });

  it('leaves no tarball for git to track when packed in sdk/', async () => {
    // `git check-ignore` exits 0 when git ignores the path, 1 when it would offer to track it.
    const check = await promisify(execFile)('git', ['check-ignore', '--no-index', '-q', `sdk/${basename(sdk.tarball)}`], { cwd: ROOT })
      .then(() => 0, (error: { code?: number }) => error.code);
    expect(check).toBe(0);
  });

  it('SDK_VERSION is the version in package.json', async () => {
    expect(sdk.manifest.version).toBe(SDK_MANIFEST.version);
    const run = await sdk.node(sdk.write('version.mjs', "import { SDK_VERSION } from '@ferry/sdk'; console.log(SDK_VERSION);"));
    expect(run.stdout.trim()).toBe(SDK_MANIFEST.version);
  });

  it.each(['node16', 'nodenext'])('type-checks from ES modules and CommonJS with moduleResolution %s', async (resolution) => {
    sdk.write('types/use.mts', TYPES);
    sdk.write('types/use.cts', TYPES);
    const run = await sdk.tsc([
      '--noEmit', '--strict', '--listFiles',
      '--module', resolution, '--moduleResolution', resolution, '--target', 'es2022', '--lib', 'es2022', '--types', 'node',
      'types/use.mts', 'types/use.cts',
    ]);
    const diagnostics = run.stdout.split('\n').filter((line) => /error TS/.test(line));
    expect(diagnostics).toEqual([]);
    expect(run.code).toBe(0);
    // Each file's imports resolved through its own condition: the ES module to dist/esm, the CommonJS one to dist/cjs.
    for (const build of ['esm', 'cjs']) {
      for (const entry of ['index', 'webhooks/index', 'proto/index']) {
        expect(run.stdout).toContain(`node_modules/@ferry/sdk/dist/${build}/${entry}.d.ts`);
      }
    }
  });

  it("type-checks every TypeScript block of the package's README against the installed package", async () => {
    const readme = readFileSync(resolve(import.meta.dirname, '../../sdk/README.md'), 'utf8');
    const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(10);
    // Blocks that continue the quick start use its `ferry` without building one again.
    const files = blocks.map((code, i) =>
      sdk.write(`readme/block-${i}.mts`, `${/const ferry\b/.test(code) ? '' : "declare const ferry: import('@ferry/sdk').Ferry;\n"}${code}\nexport {};\n`),
    );
    const run = await sdk.tsc([
      '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
      // The DOM library for the Fetch handler's Request and Response and for @connectrpc/connect's own types.
      '--lib', 'es2022,dom', '--types', 'node', ...files,
    ]);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(0);
  });
});
