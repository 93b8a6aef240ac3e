import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { startDestination, type Destination } from '../support/destination.js';
import { useFerry } from '../support/fixture.js';
import { interval, scheduleProject, secondsAhead } from '../support/schedule-client.js';

/** Numbers that JSON.parse would respell, in a body the caller wrote with spaces. */
const WRITTEN = '{ "big": 12345678901234567890123, "f": 1.0, "e": 1e3, "z": -0, "nested": [0.1, 2.50, {"n": 9007199254740993}] }';
/** What the destination gets: the same numbers, the whitespace between tokens dropped. */
const DELIVERED = '{"big":12345678901234567890123,"f":1.0,"e":1e3,"z":-0,"nested":[0.1,2.50,{"n":9007199254740993}]}';

const DELIVERY_DEADLINE_MS = 30_000;

describe('a JSON body reaches the destination with its numbers as the caller wrote them', () => {
  const certificate = sharedSelfSignedCertificate();
  const f = useFerry({
    env: { FERRY_ROLES: 'api,delivery', FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: certificate.certFile },
  });
  let dest: Destination;
  let n = 0;
  const path = () => `/body${++n}`;

  beforeAll(async () => {
    dest = await startDestination({ certificate });
  });
  afterAll(async () => {
    await dest?.close();
  });

  const post = (route: string, text: string, headers: Record<string, string> = {}) =>
    f.api.call('POST', route, { body: text, headers: { 'content-type': 'application/json', ...headers } });

  async function delivered(p: string): Promise<string> {
    const [got] = await dest.waitForRequests(p, 1, DELIVERY_DEADLINE_MS);
    expect(got!.headers['content-type']).toBe('application/json');
    return got!.body.toString('utf8');
  }

  it('on POST /requests', async () => {
    const p = path();
    const res = await post('/requests', `{"url": "${dest.url}${p}", "body": ${WRITTEN}}`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(await delivered(p)).toBe(DELIVERED);
  });

  it('on POST /requests/batch, every item with its own body', async () => {
    const [a, b, c] = [path(), path(), path()];
    const res = await post(
      '/requests/batch',
      `{"requests": [{"url": "${dest.url}${a}", "body": ${WRITTEN}}, {"url": "${dest.url}${b}", "body": {"plain": 19.99}}, {"url": "${dest.url}${c}", "body": 1.50}]}`,
      { 'idempotency-key': `batch-${a}` },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(await delivered(a)).toBe(DELIVERED);
    expect(await delivered(b)).toBe('{"plain":19.99}');
    expect(await delivered(c)).toBe('1.50');
  });

  it('on schedules, as created and as updated with a new request', async () => {
    const { api } = await scheduleProject(f);
    const created = path();
    const res = await api.call('POST', '/schedules', {
      body: `{"name": "exact", "timing": ${JSON.stringify(interval(3600, secondsAhead(2000)))}, "request": {"url": "${dest.url}${created}", "body": ${WRITTEN}}}`,
      headers: { 'content-type': 'application/json', 'idempotency-key': `sch-${created}` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = (res.body.data as { id: string }).id;
    expect(await delivered(created)).toBe(DELIVERED);
    // The detail shows the body as it is delivered (read as text: parsing it here would respell it again).
    const detail = await fetch(`${f.ferry.baseUrl}/schedules/${id}`, { headers: { authorization: `Bearer ${api.apiKey}` } });
    expect(await detail.text()).toContain(`"body":${DELIVERED}`);

    const updated = path();
    const changed = await api.call('PATCH', `/schedules/${id}`, {
      body: `{"timing": ${JSON.stringify(interval(3600, secondsAhead(2000)))}, "request": {"url": "${dest.url}${updated}", "body": {"again": 0.30000000000000001}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(await delivered(updated)).toBe('{"again":0.30000000000000001}');
  });
});
