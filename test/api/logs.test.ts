import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestService, SendRequestSchema, SendResponseSchema } from '../../src/gen/ferry/v1/request_service_pb.js';
import { Api, eventually } from '../support/api-client.js';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { createProject, ferryCli, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { GrpcTestClient } from '../support/grpc-client.js';
import { interval, newKey, Schedules, secondsAhead } from '../support/schedule-client.js';

/** A value no log line could contain by chance: anything of it in the log came from the call that used it. */
const secret = (what: string): string => `${what}-${randomBytes(9).toString('hex')}`;

type Line = Record<string, unknown>;

/**
 * One service at the most talkative level, taken through a scenario that passes every kind of secret Ferry
 * handles; the whole of its stderr is then searched for each one.
 */
describe('service log', () => {
  const certificate = sharedSelfSignedCertificate();
  let ferry: FerryProcess;
  let dest: Destination;
  let output = '';
  const lines = (): Line[] =>
    output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);

  beforeAll(async () => {
    dest = await startDestination({ certificate });
    dest.on('/fail', replies.status(503));
    ferry = await startFerry({
      env: {
        FERRY_LOG_LEVEL: 'trace',
        FERRY_ROLES: 'api,delivery',
        FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
        FERRY_DELIVERY_CA_FILE: certificate.certFile,
        FERRY_RETRY_BASE_MS: '50',
        FERRY_AUTH_CACHE_MS: '0',
      },
    });
    ferry.followOutput((text) => (output += text));
  });
  afterAll(async () => {
    await ferry?.stop();
    await dest?.close();
  });

  it('writes no API key, signing secret, destination header value or body, at any level', async () => {
    const used: string[] = [];
    const use = (what: string): string => {
      const value = secret(what);
      used.push(value);
      return value;
    };
    const { projectId, apiKey, signingSecret } = await createProject(ferry.dataDir);
    used.push(apiKey, signingSecret);
    const api = new Api(ferry.baseUrl, apiKey);
    const ok = `${dest.url}/ok`;

    const sent = await api.send({ url: ok }, use('send-body'), { 'X-Forward-X-Token': use('send-header'), 'content-type': 'text/plain' });
    expect(sent.status).toBe(202);
    const created = await api.create({
      url: ok,
      method: 'PUT',
      headers: { Authorization: `Bearer ${use('create-header')}`, 'X-Api-Key': use('create-header') },
      body: { password: use('create-body') },
      metadata: { order: '42' },
    });
    expect(created.status).toBe(202);
    const batch = await api.call('POST', '/requests/batch', {
      json: { requests: [{ url: ok, headers: { 'X-Secret': use('batch-header') }, body: use('batch-body') }, { url: ok, delay: '1h', body: { n: use('batch-body') } }] },
      headers: { 'idempotency-key': newKey() },
    });
    expect(batch.status).toBe(202);
    const delayedId = (batch.body.data as { requests: Array<{ id: string }> }).requests[1]!.id;

    const schedules = new Schedules(api);
    const schedule = await schedules.created({
      name: 'secrets',
      timing: interval(60, secondsAhead(2_000)),
      request: { url: ok, headers: { Authorization: `Bearer ${use('schedule-header')}` }, body: { token: use('schedule-body') } },
    });
    const updated = await schedules.patch(schedule.id, { request: { url: ok, headers: { 'X-Next': use('schedule-header') }, body: { token: use('schedule-body') } } });
    expect(updated.status).toBe(200);

    expect((await api.call('POST', `/requests/${delayedId}/cancel`)).status).toBe(202);
    const failing = await api.send({ url: `${dest.url}/fail`, retry: '2' }, use('failing-body'), { 'X-Forward-X-Token': use('failing-header') });
    expect(failing.status).toBe(202);

    // Refusals that carry a secret in the refused input.
    const badKey = `fry_${randomBytes(12).toString('hex')}_${randomBytes(24).toString('hex')}`;
    used.push(badKey);
    expect((await new Api(ferry.baseUrl, badKey).send({ url: ok })).status).toBe(401);
    expect((await api.send({ url: ok }, 'x', { 'X-Forward-Service-Token': use('reserved-header') })).status).toBe(422);
    const grpc = new GrpcTestClient(RequestService, ferry.grpcAddress, apiKey);
    try {
      const invalid = await grpc.call('Send', SendRequestSchema, SendResponseSchema, { url: 'not a url', body: Buffer.from(use('grpc-body')), forwardHeaders: { 'X-Token': use('grpc-header') } });
      expect(invalid.ok).toBe(false);
    } finally {
      grpc.close();
    }

    // Deliveries: one replayed once it succeeded, one failing through its retries.
    const sentId = (sent.body.data as { id: string }).id;
    await eventually(async () => ((await api.call<{ status: string }>('GET', `/requests/${sentId}`)).body.data.status === 'succeeded' ? true : undefined), 30_000);
    expect((await api.call('POST', `/requests/${sentId}/replay`, { headers: { 'idempotency-key': newKey() } })).status).toBe(202);
    const failingId = (failing.body.data as { id: string }).id;
    await eventually(async () => ((await api.call<{ status: string }>('GET', `/requests/${failingId}`)).body.data.status === 'failed' ? true : undefined), 30_000);
    await dest.waitForRequests('/ok', 5, 30_000);

    // A rotated signing secret, then a delivery signed with it.
    const rotated = await ferryCli(ferry.dataDir, ['signing-secret', 'rotate', '--project', projectId]);
    used.push(rotated.signing_secret as string);
    expect((await api.send({ url: ok }, use('after-rotation-body'))).status).toBe(202);
    await dest.waitForRequests('/ok', 6, 30_000);

    await ferry.stop();
    // The level was on: the refusals above were logged, each with its call's identity.
    expect(lines().filter((l) => l.msg === 'api call failed' && l.level === 'debug').length).toBeGreaterThanOrEqual(3);
    for (const value of used) expect(output, `the log holds ${value.slice(0, 20)}…`).not.toContain(value);

    // What the engine did, one debug line per attempt: never the destination's address, path or query.
    const attempts = (id: string) => lines().filter((l) => l.msg === 'delivery attempt' && l.request_id === id);
    expect(attempts(sentId)).toEqual([
      { level: 'debug', time: expect.any(String), msg: 'delivery attempt', request_id: sentId, attempt: 1, outcome: 'succeeded', result: 'succeeded', status_code: 200, duration_ms: expect.any(Number) },
    ]);
    expect(attempts(failingId).map((l) => [l.attempt, l.outcome, l.result, l.status_code, typeof l.retry_in_ms])).toEqual([
      [1, 'retry_scheduled', 'failed', 503, 'number'],
      [2, 'retry_scheduled', 'failed', 503, 'number'],
      [3, 'failed', 'failed', 503, 'undefined'],
    ]);
    const started = lines().filter((l) => l.msg === 'delivery attempt started' && l.request_id === failingId);
    expect(started.map((l) => [l.level, l.attempt])).toEqual([
      ['trace', 1],
      ['trace', 2],
      ['trace', 3],
    ]);
    const destination = new URL(dest.url);
    for (const line of lines().filter((l) => String(l.msg).startsWith('delivery'))) {
      const text = JSON.stringify(line);
      for (const part of [destination.host, '/ok', '/fail']) expect(text).not.toContain(part);
    }
  });
});

describe('failed API call lines', () => {
  let ferry: FerryProcess;
  let output = '';
  beforeAll(async () => {
    ferry = await startFerry({ env: { FERRY_LOG_LEVEL: 'debug', FERRY_ROLES: 'api' } });
    ferry.followOutput((text) => (output += text));
  });
  afterAll(async () => {
    await ferry?.stop();
  });

  const lineOf = (requestId: string) =>
    eventually(async () => {
      const line = output.split('\n').find((l) => l.includes(`"request_id":"${requestId}"`));
      return line === undefined ? undefined : (JSON.parse(line) as Line);
    });

  it('carry the request_id of the answer, the route template, the protocol and the project', async () => {
    const { projectId, apiKey } = await createProject(ferry.dataDir);
    const missing = await new Api(ferry.baseUrl, apiKey).call('GET', '/requests/req_0000000000000000000000000');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('ferry-request-id')).toBe(missing.body.request_id);
    expect(await lineOf(missing.body.request_id)).toMatchObject({
      level: 'debug',
      msg: 'api call failed',
      route: 'GET /requests/{request_id}',
      protocol: 'json',
      project_id: projectId,
      status: 404,
      code: 'NOT_FOUND',
    });

    const grpc = new GrpcTestClient(RequestService, ferry.grpcAddress, apiKey);
    try {
      const refused = await grpc.call('Send', SendRequestSchema, SendResponseSchema, { url: 'not a url' });
      if (refused.ok) throw new Error('an invalid URL was accepted');
      const [requestId] = refused.error.metadata.get('ferry-request-id');
      expect(typeof requestId).toBe('string');
      expect(await lineOf(requestId as string)).toMatchObject({
        route: 'ferry.v1.RequestService/Send',
        protocol: 'grpc',
        project_id: projectId,
        status: 422,
        code: 'INVALID_URL',
        field: 'url',
      });
    } finally {
      grpc.close();
    }

    const unknown = await new Api(ferry.baseUrl, 'fry_unknown').send({ url: 'https://example.com/' });
    const line = await lineOf(unknown.body.request_id);
    expect(line).toMatchObject({ route: 'POST /send', status: 401, code: 'UNAUTHENTICATED' });
    expect(line).not.toHaveProperty('project_id');
  });

  it('are written for calls refused before any service code runs: a body that is no Protobuf message, a content type Connect does not read', async () => {
    const { projectId, apiKey } = await createProject(ferry.dataDir);
    const send = `${ferry.baseUrl}/ferry.v1.RequestService/Send`;
    const malformed = await fetch(send, {
      method: 'POST',
      headers: { 'content-type': 'application/proto', authorization: `Bearer ${apiKey}` },
      body: Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x0f]),
    });
    expect(malformed.status).toBe(400);
    expect(await lineOf(malformed.headers.get('ferry-request-id')!)).toMatchObject({
      level: 'debug',
      route: 'ferry.v1.RequestService/Send',
      protocol: 'connect',
      project_id: projectId,
      status: 422,
      code: 'INVALID_PROTOBUF',
    });
    const xml = await fetch(send, { method: 'POST', headers: { 'content-type': 'text/xml', authorization: `Bearer ${apiKey}` }, body: '<send/>' });
    expect(xml.status).toBe(415);
    expect(await lineOf(xml.headers.get('ferry-request-id')!)).toMatchObject({ route: 'ferry.v1.RequestService/Send', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});
