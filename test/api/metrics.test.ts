import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetUsageRequestSchema, GetUsageResponseSchema, ProjectService } from '../../src/gen/ferry/v1/project_service_pb.js';
import { RequestService, SendRequestSchema, SendResponseSchema } from '../../src/gen/ferry/v1/request_service_pb.js';
import { Api, eventually } from '../support/api-client.js';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { TEST_BACKEND } from '../support/deployment.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { useFerry } from '../support/fixture.js';
import { GrpcTestClient } from '../support/grpc-client.js';
import { sampleOf } from '../support/metrics.js';
import { interval, newKey, Schedules, secondsAhead } from '../support/schedule-client.js';

/** Whether every series that names a project is one of the per-project allowance gauges. */
function onlyAllowanceGaugesNameProjects(text: string): boolean {
  const naming = text.split('\n').filter((line) => /prj_[0-9A-Za-z]{8,}/.test(line));
  return naming.every((line) => /^ferry_project_allowance(_used)?\{project_id="prj_[0-9A-Za-z]+"\} \d+$/.test(line));
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
}

describe('GET /metrics', () => {
  const certificate = sharedSelfSignedCertificate();
  const f = useFerry({
    env: {
      FERRY_ROLES: 'api,delivery',
      FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
      FERRY_DELIVERY_CA_FILE: certificate.certFile,
      FERRY_RETRY_BASE_MS: '50',
    },
  });
  let dest: Destination;
  let grpc: GrpcTestClient;

  beforeAll(async () => {
    dest = await startDestination({ certificate });
    dest.on('/fail', replies.status(500));
    grpc = new GrpcTestClient(RequestService, f.ferry.grpcAddress, f.apiKey);
  });
  afterAll(async () => {
    grpc?.close();
    await dest?.close();
  });

  const metrics = () => scrape(`${f.ferry.baseUrl}/metrics`);

  it('is served on the HTTP port without an API key or envelope, with the process metrics beside the service metrics', async () => {
    const text = await metrics();
    expect(text).toContain('# TYPE ferry_requests_accepted_total counter');
    expect(text).toContain('# TYPE ferry_api_request_duration_seconds histogram');
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toContain('ferry_backlog_oldest_due_age_seconds');
    if (TEST_BACKEND === 'embedded') expect(text).toContain('ferry_backlog_requests{state="scheduled"}');
    else expect(text).toContain('ferry_shards_owned');
    // No request or schedule ID ever becomes a label, and a project ID only on the per-project allowance gauges.
    expect(text).not.toMatch(/(req|sch)_[0-9A-Za-z]{8,}/);
    expect(onlyAllowanceGaugesNameProjects(text)).toBe(true);
  });

  it("answers GET /usage with the project's usage (the same over gRPC), and gauges it per project", async () => {
    const p = await f.newProject({ monthlyAllowance: 10 });
    for (let i = 0; i < 3; i++) expect((await p.api.send({ url: `${dest.url}/ok`, delay: '1h' })).status).toBe(202);
    // A schedule far in the future: counted against the schedule allowance, firing nothing during the test.
    await new Schedules(p.api).created({ name: 'later', timing: interval(86_400, secondsAhead(20 * 86_400_000)), request: { url: `${dest.url}/ok` } });

    const now = new Date();
    const res = await p.api.call('GET', '/usage');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, error: null, meta: null });
    expect(res.body.data).toEqual({
      period_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      period_end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      used: 3,
      allowance: 10,
      remaining: 7,
      schedules: 1,
      schedule_allowance: 100,
    });
    expect((await p.api.call('GET', '/usage', { auth: null })).status).toBe(401);

    const overGrpc = new GrpcTestClient(ProjectService, f.ferry.grpcAddress, p.apiKey);
    try {
      const answer = await overGrpc.call('GetUsage', GetUsageRequestSchema, GetUsageResponseSchema, {});
      if (!answer.ok) throw answer.error;
      expect(answer.value.usage).toMatchObject({ used: 3n, allowance: 10n, remaining: 7n, schedules: 1n, scheduleAllowance: 100n });
    } finally {
      overGrpc.close();
    }

    // Read again at most every 10 s, so the gauges may take one reading to show the project.
    const text = await eventually(async () => {
      const scraped = await metrics();
      return sampleOf(scraped, 'ferry_project_allowance_used', { project_id: p.projectId }) === 3 ? scraped : undefined;
    }, 30_000);
    expect(sampleOf(text, 'ferry_project_allowance', { project_id: p.projectId })).toBe(10);
    expect(onlyAllowanceGaugesNameProjects(text)).toBe(true);
  });

  it('moves as the service works: accepted requests, deliveries, occurrences, refusals and call latency', async () => {
    const before = await metrics();
    const delta = (text: string, name: string, labels: Record<string, string> = {}) => sampleOf(text, name, labels) - sampleOf(before, name, labels);

    const sent = await f.api.send({ url: `${dest.url}/ok` });
    expect(sent.status).toBe(202);
    const failing = await f.api.send({ url: `${dest.url}/fail`, retry: '0' });
    expect(failing.status).toBe(202);
    const retried = await f.api.send({ url: `${dest.url}/fail`, retry: '1' });
    expect(retried.status).toBe(202);
    const batch = await f.api.call('POST', '/requests/batch', {
      json: { requests: [{ url: `${dest.url}/ok` }, { url: `${dest.url}/ok`, delay: '1h' }] },
      headers: { 'idempotency-key': newKey() },
    });
    expect(batch.status).toBe(202);
    const viaGrpc = await grpc.call('Send', SendRequestSchema, SendResponseSchema, { url: `${dest.url}/ok`, delay: '1h' });
    expect(viaGrpc.ok).toBe(true);

    const schedules = new Schedules(f.api);
    await schedules.created({ name: 'metrics', timing: interval(60, secondsAhead(3_000)), request: { url: `${dest.url}/ok` } });

    const limited = await f.newProject({ monthlyAllowance: 1 });
    expect((await limited.api.send({ url: `${dest.url}/ok`, delay: '1h' })).status).toBe(202);
    const refused = await limited.api.send({ url: `${dest.url}/ok`, delay: '1h' });
    expect(refused.status).toBe(429);

    const after = await eventually(async () => {
      const text = await metrics();
      const done =
        delta(text, 'ferry_deliveries_total', { outcome: 'succeeded' }) >= 2 &&
        delta(text, 'ferry_deliveries_total', { outcome: 'failed' }) >= 2 &&
        delta(text, 'ferry_schedule_occurrences_total', { outcome: 'enqueued' }) >= 1;
      return done ? text : undefined;
    }, 60_000);

    expect(delta(after, 'ferry_requests_accepted_total', { endpoint: 'send', outcome: 'queued' })).toBe(3);
    // The gRPC send and the limited project's one.
    expect(delta(after, 'ferry_requests_accepted_total', { endpoint: 'send', outcome: 'scheduled' })).toBe(2);
    expect(delta(after, 'ferry_requests_accepted_total', { endpoint: 'batch', outcome: 'queued' })).toBe(1);
    expect(delta(after, 'ferry_requests_accepted_total', { endpoint: 'batch', outcome: 'scheduled' })).toBe(1);
    expect(delta(after, 'ferry_requests_accepted_total', { endpoint: 'schedule', outcome: 'scheduled' }) + delta(after, 'ferry_requests_accepted_total', { endpoint: 'schedule', outcome: 'queued' })).toBeGreaterThanOrEqual(1);
    expect(delta(after, 'ferry_deliveries_total', { outcome: 'retry_scheduled' })).toBe(1);
    expect(delta(after, 'ferry_retry_delay_seconds_count')).toBe(1);
    expect(delta(after, 'ferry_attempt_duration_seconds_count', { result: 'failed' })).toBe(3);
    expect(delta(after, 'ferry_attempt_duration_seconds_count', { result: 'succeeded' })).toBeGreaterThanOrEqual(2);
    expect(delta(after, 'ferry_timer_lateness_seconds_count')).toBeGreaterThanOrEqual(4);
    expect(delta(after, 'ferry_allowance_rejections_total', { allowance: 'monthly' })).toBe(1);
    expect(delta(after, 'ferry_api_request_duration_seconds_count', { route: 'POST /send', protocol: 'json', code: '2xx' })).toBe(4);
    expect(delta(after, 'ferry_api_request_duration_seconds_count', { route: 'POST /send', protocol: 'json', code: '4xx' })).toBe(1);
    expect(delta(after, 'ferry_api_request_duration_seconds_count', { route: 'POST /requests/batch', protocol: 'json', code: '2xx' })).toBe(1);
    expect(delta(after, 'ferry_api_request_duration_seconds_count', { route: 'ferry.v1.RequestService/Send', protocol: 'grpc', code: '2xx' })).toBe(1);
    expect(delta(after, 'ferry_api_request_duration_seconds_count', { route: 'POST /schedules', protocol: 'json', code: '2xx' })).toBe(1);
    expect(after).toContain('ferry_storage_errors_total{store="requests"}');
    expect(after).toContain('ferry_kafka_errors_total');
  });
});

describe('metrics settings', () => {
  let ferry: FerryProcess | undefined;
  afterAll(async () => {
    await ferry?.stop();
  });

  it('serves /metrics on a listener of its own when FERRY_METRICS_PORT is set, and not on the API port', async () => {
    ferry = await startFerry({ env: { FERRY_METRICS_PORT: '0', FERRY_ROLES: 'api' } });
    let output = '';
    ferry.followOutput((text) => (output += text));
    const line = output.split('\n').find((l) => l.includes('"metrics listening"'));
    expect(line).toBeDefined();
    const port = (JSON.parse(line!) as { metrics_port: number }).metrics_port;
    const { apiKey } = await createProject(ferry.dataDir);
    expect((await new Api(ferry.baseUrl, apiKey).send({ url: 'https://example.com/hook', delay: '1h' })).status).toBe(202);
    const text = await scrape(`http://127.0.0.1:${port}/metrics`);
    expect(sampleOf(text, 'ferry_requests_accepted_total', { endpoint: 'send', outcome: 'scheduled' })).toBe(1);
    expect((await fetch(`http://127.0.0.1:${port}/elsewhere`)).status).toBe(404);
    expect((await fetch(`${ferry.baseUrl}/metrics`)).status).toBe(404);
    await ferry.stop();
    ferry = undefined;
  });

  it('is off entirely with FERRY_METRICS_ENABLED=false', async () => {
    ferry = await startFerry({ env: { FERRY_METRICS_ENABLED: 'false', FERRY_ROLES: 'api' } });
    const res = await fetch(`${ferry.baseUrl}/metrics`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
  });
});
