import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidHeaderError,
  MissingHeaderError,
  NoMatchingSignatureError,
  StaleTimestampError,
  verifyDelivery,
  type VerifiedDelivery,
} from '../../sdk/src/webhooks/index.js';
import { Api, eventually } from '../support/api-client.js';
import { startDestination, type Destination, type ReceivedRequest } from '../support/destination.js';
import { createProject, ferryCli, startFerry, type FerryProcess } from '../support/ferry-process.js';

/** What the receiver made of one delivery: who it was, or which check refused it. */
type Outcome = { verified: VerifiedDelivery } | { refused: string };

// Real deliveries from a delivering Ferry to a loopback receiver that verifies each one with the project's secret
// as a user's endpoint would, answering 204 when the signature holds and 400 when it does not.
describe('verifyDelivery against deliveries Ferry sends', () => {
  let dest: Destination;
  let ferry: FerryProcess;
  let api: Api;
  let projectId: string;
  let secrets: string[];
  const outcomes = new Map<string, Outcome>();
  let n = 0;
  const path = () => `/hook${++n}`;

  beforeAll(async () => {
    dest = await startDestination();
    ferry = await startFerry({
      env: {
        FERRY_ROLES: 'api,delivery',
        FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
        FERRY_DELIVERY_CA_FILE: dest.certFile,
        FERRY_AUTH_CACHE_MS: '0',
      },
    });
    const project = await createProject(ferry.dataDir);
    api = new Api(ferry.baseUrl, project.apiKey);
    projectId = project.projectId;
    secrets = [project.signingSecret];
  });
  afterAll(async () => {
    await ferry?.stop();
    await dest?.close();
  });

  /** Scripts `p` to verify what arrives with the secrets configured at that moment, the way a user's endpoint does. */
  function receiveAt(p: string, headersAs: 'node' | 'fetch' = 'node'): void {
    dest.on(p, async ({ request, res }) => {
      const outcome = await check(request, { headersAs, secrets: [...secrets] });
      outcomes.set(p, outcome);
      res.writeHead('verified' in outcome ? 204 : 400).end();
    });
  }

  async function check(request: ReceivedRequest, opts: { headersAs?: 'node' | 'fetch'; secrets?: string[]; body?: string | Uint8Array; now?: Date } = {}): Promise<Outcome> {
    const headers = opts.headersAs === 'fetch' ? new Headers(request.headers) : request.headers;
    try {
      const verified = await verifyDelivery({ secrets: opts.secrets ?? secrets, headers, body: opts.body ?? request.body, now: opts.now });
      return { verified };
    } catch (error) {
      return { refused: (error as Error).constructor.name };
    }
  }

  async function succeeded(id: string): Promise<void> {
    await eventually(async () => {
      const { body } = await api.call<{ status: string }>('GET', `/requests/${id}`);
      return body.data.status === 'succeeded' ? true : undefined;
    }, 15_000);
  }

  async function sendTo(p: string, body: string | Uint8Array, contentType: string): Promise<string> {
    const res = await api.send({ url: dest.url + p }, body, { 'content-type': contentType });
    expect(res.status).toBe(202);
    return (res.body.data as { id: string }).id;
  }

  it('verifies a JSON delivery with Node headers and a Fetch Headers object alike', async () => {
    const p = path();
    receiveAt(p, 'fetch');
    const created = await api.create({ url: dest.url + p, body: { order: 42, note: 'größe' } });
    expect(created.status).toBe(202);
    const id = (created.body.data as { id: string }).id;
    const [got] = await dest.waitForRequests(p, 1, 15_000);
    await succeeded(id);
    expect(outcomes.get(p)).toEqual({ verified: { requestId: id, attempt: 1, timestamp: expect.any(Date), scheduleId: null } });
    const viaNode = await check(got!, { headersAs: 'node' });
    expect(viaNode).toEqual(outcomes.get(p));
    const signedAt = Number(got!.headers['service-timestamp']);
    expect((viaNode as { verified: VerifiedDelivery }).verified.timestamp.getTime()).toBe(signedAt * 1000);
    // The body as text verifies too: what a framework hands over after decoding UTF-8.
    expect(await check(got!, { body: got!.body.toString('utf8') })).toEqual(viaNode);
  });

  it('verifies a binary body byte for byte', async () => {
    const p = path();
    receiveAt(p);
    const bytes = new Uint8Array([0, 255, 1, 254, 0xc3, 0x28, 10, 13, 0]);
    const id = await sendTo(p, bytes, 'application/octet-stream');
    const [got] = await dest.waitForRequests(p, 1, 15_000);
    await succeeded(id);
    expect(got!.body.equals(Buffer.from(bytes))).toBe(true);
    expect(outcomes.get(p)).toMatchObject({ verified: { requestId: id, attempt: 1 } });
  });

  it('refuses a delivery whose body, timestamp, id or secret is not what Ferry signed', async () => {
    const p = path();
    receiveAt(p);
    await sendTo(p, '{"amount":100}', 'application/json');
    const [got] = await dest.waitForRequests(p, 1, 15_000);
    const altered = (headers: Record<string, string>): ReceivedRequest => ({ ...got!, headers: { ...got!.headers, ...headers } });
    const timestamp = Number(got!.headers['service-timestamp']);

    expect(await check(got!, { body: Buffer.from('{"amount":900}') })).toEqual({ refused: NoMatchingSignatureError.name });
    expect(await check(altered({ 'service-timestamp': String(timestamp + 1) }))).toEqual({ refused: NoMatchingSignatureError.name });
    expect(await check(altered({ 'service-request-id': 'req_someoneelse' }))).toEqual({ refused: NoMatchingSignatureError.name });
    const other = await createProject(ferry.dataDir, { name: 'other' });
    expect(await check(got!, { secrets: [other.signingSecret] })).toEqual({ refused: NoMatchingSignatureError.name });
    // A genuine delivery captured and sent again an hour later.
    expect(await check(got!, { now: new Date((timestamp + 3600) * 1000) })).toEqual({ refused: StaleTimestampError.name });
    expect(await check(altered({ 'service-timestamp': 'yesterday' }))).toEqual({ refused: InvalidHeaderError.name });
    const { 'service-signature': _dropped, ...unsigned } = got!.headers;
    expect(await check({ ...got!, headers: unsigned })).toEqual({ refused: MissingHeaderError.name });
  });

  it('after a secret rotation, accepts with the old secret, the new one, or both', async () => {
    const before = secrets[0]!;
    const rotated = await ferryCli(ferry.dataDir, ['signing-secret', 'rotate', '--project', projectId]);
    const after = rotated.signing_secret as string;
    expect(after).toMatch(/^whsec_/);
    secrets = [before, after];
    // The new secret joins the signatures within seconds; send until a delivery carries both.
    const got = await eventually(async () => {
      const p = path();
      receiveAt(p);
      await sendTo(p, 'rotating', 'text/plain');
      const [request] = await dest.waitForRequests(p, 1, 15_000);
      return request!.headers['service-signature']!.split(' ').length === 2 ? request : undefined;
    }, 30_000);
    for (const keys of [[before], [after], [after, before]]) {
      expect(await check(got!, { secrets: keys })).toMatchObject({ verified: { requestId: got!.headers['service-request-id'] } });
    }
  });
});
