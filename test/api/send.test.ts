import { describe, expect, it } from 'vitest';
import { openTestBackend } from '../support/deployment.js';
import { DEST, useFerry } from '../support/fixture.js';

interface Acceptance {
  id: string;
  project_id: string;
  replayed_from_request_id: string | null;
  status: string;
  scheduled_at: string | null;
  created_at: string;
}

describe('POST /send', () => {
  const f = useFerry();

  async function stored(id: string) {
    const backend = await openTestBackend(f.ferry.dataDir);
    try {
      return await backend.requests.get(f.projectId, id);
    } finally {
      await backend.close();
    }
  }

  async function count(): Promise<number> {
    const res = await f.api.call<{ items: unknown[] }>('GET', '/requests?limit=100');
    return res.body.data.items.length;
  }

  it('accepts with 202 and the acceptance object', async () => {
    const res = await f.api.send({ url: DEST });
    expect(res.status).toBe(202);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const a = res.body.data as Acceptance;
    expect(res.body).toMatchObject({ success: true, error: null, meta: null });
    expect(a).toEqual({
      id: expect.stringMatching(/^req_[0-9A-Z]{26}$/),
      project_id: f.projectId,
      replayed_from_request_id: null,
      status: 'queued',
      scheduled_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
    });
  });

  it('keeps the raw body byte for byte, the content type unchanged and forwarded headers by name', async () => {
    const body = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 13, 10, 0x7b]);
    const res = await f.api.send({ url: DEST, method: 'PUT' }, body, {
      'content-type': 'application/x-weird; charset=latin1',
      'x-forward-authorization': 'Bearer downstream',
      'X-Forward-X-Trace': 'abc',
    });
    expect(res.status).toBe(202);
    const id = (res.body.data as Acceptance).id;
    const row = await stored(id);
    expect(Buffer.from(row!.body!)).toEqual(body);
    expect(row!.contentType).toBe('application/x-weird; charset=latin1');
    expect(row!.method).toBe('PUT');
    expect(row!.maxAttempts).toBe(1);
    expect(row!.timeoutSeconds).toBe(50);
    expect(row!.queue).toBe('default');
    expect(Object.fromEntries(row!.headers.map(([n, v]) => [n.toLowerCase(), v]))).toEqual({
      authorization: 'Bearer downstream',
      'x-trace': 'abc',
    });
    const detail = await f.api.call<Record<string, unknown>>('GET', `/requests/${id}`);
    const shown = Object.entries(detail.body.data.headers as Record<string, string>).map(([n, v]) => [n.toLowerCase(), v]);
    expect(Object.fromEntries(shown)).toEqual({ authorization: '[REDACTED]', 'x-trace': '[REDACTED]' });
    expect(JSON.stringify(detail.body)).not.toContain('downstream');
    expect(JSON.stringify(detail.body)).not.toContain(f.apiKey);
  });

  it('applies every option: retry, delay, timeout, queue', async () => {
    const before = Date.now();
    const res = await f.api.send({ url: DEST, retry: '3', delay: '2h', timeout: '5m', queue: 'billing.v2-x_y' });
    expect(res.status).toBe(202);
    const a = res.body.data as Acceptance;
    expect(a.status).toBe('scheduled');
    const at = Date.parse(a.scheduled_at!);
    expect(at).toBeGreaterThanOrEqual(before + 2 * 3600_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 2 * 3600_000);
    const row = await stored(a.id);
    expect(row).toMatchObject({ maxAttempts: 4, timeoutSeconds: 300, queue: 'billing.v2-x_y', status: 'scheduled' });
  });

  it('treats a past deliver_at as now and a future one as scheduled', async () => {
    const past = await f.api.send({ url: DEST, deliver_at: '2020-01-01T00:00:00Z' });
    expect((past.body.data as Acceptance).status).toBe('queued');
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const later = await f.api.send({ url: DEST, deliver_at: future });
    expect(later.body.data).toMatchObject({ status: 'scheduled', scheduled_at: future });
  });

  it.each([
    [{ url: 'http://example.com/' }, 'INVALID_URL', 'url'],
    [{ url: 'https://user:pw@example.com/' }, 'INVALID_URL', 'url'],
    [{ url: 'https://example.com/#frag' }, 'INVALID_URL', 'url'],
    [{ url: `https://example.com/${'a'.repeat(2030)}` }, 'INVALID_URL', 'url'],
    [{ url: 'not a url' }, 'INVALID_URL', 'url'],
    [{ url: 'https://127.0.0.1/' }, 'DESTINATION_NOT_ALLOWED', 'url'],
    [{ url: 'https://localhost/' }, 'DESTINATION_NOT_ALLOWED', 'url'],
    [{ url: 'https://[::1]/' }, 'DESTINATION_NOT_ALLOWED', 'url'],
    [{ url: 'https://[::ffff:a9fe:a9fe]/' }, 'DESTINATION_NOT_ALLOWED', 'url'],
    [{ url: 'https://169.254.169.254/latest' }, 'DESTINATION_NOT_ALLOWED', 'url'],
    [{ url: 'https://10.1.2.3/' }, 'DESTINATION_NOT_ALLOWED', 'url'],
    [{ url: 'https://2130706433/' }, 'DESTINATION_NOT_ALLOWED', 'url'],
    [{ url: DEST, method: 'HEAD' }, 'INVALID_METHOD', 'method'],
    [{ url: DEST, method: 'post' }, 'INVALID_METHOD', 'method'],
    [{ url: DEST, retry: '20' }, 'INVALID_RETRY', 'retry'],
    [{ url: DEST, retry: '-1' }, undefined, 'retry'],
    [{ url: DEST, retry: 'x' }, undefined, 'retry'],
    [{ url: DEST, delay: '0s' }, 'INVALID_DELAY', 'delay'],
    [{ url: DEST, delay: '31d' }, 'INVALID_DELAY', 'delay'],
    [{ url: DEST, delay: '1.5h' }, 'INVALID_DELAY', 'delay'],
    [{ url: DEST, delay: '1w' }, 'INVALID_DELAY', 'delay'],
    [{ url: DEST, delay: '1m', deliver_at: '2030-01-01T00:00:00Z' }, 'INVALID_DELIVER_AT', 'deliver_at'],
    [{ url: DEST, deliver_at: '2030-13-01T00:00:00Z' }, 'INVALID_DELIVER_AT', 'deliver_at'],
    [{ url: DEST, deliver_at: new Date(Date.now() + 31 * 86_400_000).toISOString() }, 'INVALID_DELIVER_AT', 'deliver_at'],
    [{ url: DEST, timeout: '0s' }, 'INVALID_TIMEOUT', 'timeout'],
    [{ url: DEST, timeout: '301s' }, 'INVALID_TIMEOUT', 'timeout'],
    [{ url: DEST, timeout: '6m' }, 'INVALID_TIMEOUT', 'timeout'],
    [{ url: DEST, timeout: '1h' }, 'INVALID_TIMEOUT', 'timeout'],
    [{ url: DEST, queue: '' }, 'INVALID_QUEUE', 'queue'],
    [{ url: DEST, queue: 'a b' }, 'INVALID_QUEUE', 'queue'],
    [{ url: DEST, queue: 'q'.repeat(65) }, 'INVALID_QUEUE', 'queue'],
    [{ url: DEST, surprise: '1' }, 'UNKNOWN_FIELD', 'surprise'],
    [{}, undefined, 'url'],
  ])('rejects %j with 422 %s and stores nothing', async (query, code, field) => {
    const before = await count();
    const res = await f.api.send(query as Record<string, string>);
    expect(res.status).toBe(422);
    expect(res.body.success).toBe(false);
    if (code) expect(res.body.error?.code).toBe(code);
    expect(res.body.error?.field).toBe(field);
    expect(res.body.error?.message).toBeTruthy();
    expect(await count()).toBe(before);
  });

  it('rejects bad headers: reserved names, oversize Content-Type, too many forwarded headers', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'x-forward-host': 'evil' }, 'INVALID_HEADERS'],
      [{ 'x-forward-service-signature': 'x' }, 'INVALID_HEADERS'],
      [{ 'content-type': `text/${'a'.repeat(251)}` }, 'INVALID_CONTENT_TYPE'],
      [Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`x-forward-h${i}`, 'v'])), 'INVALID_HEADERS'],
      [{ 'x-forward-big': 'v'.repeat(33 * 1024) }, 'INVALID_HEADERS'],
      [{ 'idempotency-key': 'k'.repeat(256) }, 'INVALID_IDEMPOTENCY_KEY'],
    ];
    for (const [headers, code] of cases) {
      const res = await f.api.send({ url: DEST }, 'x', headers);
      expect(res.status, code).toBe(422);
      expect(res.body.error?.code).toBe(code);
    }
  });

  it('accepts a body of exactly 256 KiB and answers 413 above it', async () => {
    expect((await f.api.send({ url: DEST }, Buffer.alloc(256 * 1024, 1))).status).toBe(202);
    const before = await count();
    const res = await f.api.send({ url: DEST }, Buffer.alloc(256 * 1024 + 1, 1));
    expect(res.status).toBe(413);
    expect(res.body.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await count()).toBe(before);
  });

  it('accepts the limits exactly: retry 19, delay 30d, timeout 5m, 64-char queue', async () => {
    const res = await f.api.send({ url: DEST, retry: '19', delay: '30d', timeout: '5m', queue: 'q'.repeat(64) });
    expect(res.status).toBe(202);
  });
});
