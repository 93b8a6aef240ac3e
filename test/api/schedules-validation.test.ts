import { beforeAll, describe, expect, it } from 'vitest';
import { DEST, useFerry } from '../support/fixture.js';
import {
  cron,
  expectError,
  interval,
  iso,
  minimal,
  newKey,
  scheduleProject,
  type ScheduleDetail,
  type Schedules,
} from '../support/schedule-client.js';

const KIB = 1024;

/** A valid create body; each case changes one thing in a fresh copy. */
interface Definition {
  name?: unknown;
  timing?: Record<string, unknown>;
  request?: Record<string, unknown>;
  [other: string]: unknown;
}
const valid = (): Definition => ({ name: 'valid', timing: cron('0 3 * * *'), request: { url: DEST } });
const headers = (n: number, valueBytes = 1) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, 'v'.repeat(valueBytes)]));
/** A JSON string body whose serialized form is exactly `bytes` bytes (the quotes included). */
const jsonStringOf = (bytes: number) => 'a'.repeat(bytes - 2);

type Change = (d: Definition) => void;
const timing = (t: Record<string, unknown>): Change => (d) => { d.timing = t; };
const request = (r: Record<string, unknown>): Change => (d) => { d.request = { url: DEST, ...r }; };

const BAD_CRON: Array<[string, string]> = [
  ['0 3 * *', 'four fields'],
  ['0 0 3 * * *', 'six fields'],
  ['@daily', 'a macro'],
  ['@hourly', 'a macro'],
  ['0 0 L * *', 'L'],
  ['0 0 15W * *', 'W'],
  ['0 0 * * 1#2', '#'],
  ['0 0 30 2 *', 'never fires: 30 February'],
  ['0 0 31 4 *', 'never fires: 31 April'],
  ['60 * * * *', 'minute 60'],
  ['* 24 * * *', 'hour 24'],
  ['* * 0 * *', 'day 0'],
  ['* * 32 * *', 'day 32'],
  ['* * * 13 *', 'month 13'],
  ['*/99999999999 * * * *', 'a step past the field'],
  [`0 0 * * *${' '.repeat(600)}`, 'over 512 bytes'],
  ['* * * * 8', 'weekday 8'],
  ['*/0 * * * *', 'step 0'],
  ['every day', 'words'],
  ['', 'empty'],
];

// [what, code, field, change]; every one is a 422 that must store nothing.
const CREATE_CASES: Array<[string, string, string, Change]> = [
  ['a missing name', 'MISSING_FIELD', 'name', (d) => { delete d.name; }],
  ['an empty name', 'INVALID_NAME', 'name', (d) => { d.name = ''; }],
  ['a blank name', 'INVALID_NAME', 'name', (d) => { d.name = ' \t  '; }],
  ['a 121-byte name', 'INVALID_NAME', 'name', (d) => { d.name = 'a'.repeat(121); }],
  ['a name of 61 two-byte characters', 'INVALID_NAME', 'name', (d) => { d.name = 'é'.repeat(61); }],
  ['a missing timing', 'MISSING_FIELD', 'timing', (d) => { delete d.timing; }],
  ['an unknown timing type', 'INVALID_TIMING', 'timing.type', timing({ type: 'weekly', expression: '0 3 * * *', timezone: 'UTC' })],
  ['a cron without expression', 'MISSING_FIELD', 'timing.expression', timing({ type: 'cron', timezone: 'UTC' })],
  ...BAD_CRON.map(([expr, why]): [string, string, string, Change] => [`cron "${expr}" (${why})`, 'INVALID_TIMING', 'timing.expression', timing(cron(expr))]),
  ['an unknown time zone', 'INVALID_TIMING', 'timing.timezone', timing(cron('0 3 * * *', 'Mars/Olympus_Mons'))],
  ['a misspelt time zone', 'INVALID_TIMING', 'timing.timezone', timing(cron('0 3 * * *', 'Europe/Berln'))],
  ['an empty time zone', 'INVALID_TIMING', 'timing.timezone', timing(cron('0 3 * * *', ''))],
  ['an interval without every_seconds', 'MISSING_FIELD', 'timing.every_seconds', timing({ type: 'interval' })],
  ...[0, -60, 59, 90, 3630, 2_592_060, 2_678_400].map((s): [string, string, string, Change] => [
    `an interval of ${s} s`, 'INVALID_TIMING', 'timing.every_seconds', timing(interval(s)),
  ]),
  // A number of the wrong type is refused by the JSON reading itself, as for every integer field of the API.
  ['an interval of 60.5 s', 'INVALID_FIELD', 'timing.every_seconds', timing(interval(60.5))],
  ['an interval starting in the past', 'INVALID_TIMING', 'timing.starts_at', (d) => { d.timing = interval(3600, iso(Date.now() - 60_000)); }],
  ['an interval starting "tomorrow"', 'INVALID_TIMING', 'timing.starts_at', timing(interval(3600, 'tomorrow'))],
  ['an interval starting in month 13', 'INVALID_TIMING', 'timing.starts_at', timing(interval(3600, '2030-13-01T00:00:00Z'))],
  ['a missing request', 'MISSING_FIELD', 'request', (d) => { delete d.request; }],
  ['a request without url', 'MISSING_FIELD', 'request.url', (d) => { d.request = { body: { a: 1 } }; }],
  ['an http URL', 'INVALID_URL', 'request.url', request({ url: 'http://example.com/hook' })],
  ['an ftp URL', 'INVALID_URL', 'request.url', request({ url: 'ftp://example.com/hook' })],
  ['a URL with credentials', 'INVALID_URL', 'request.url', request({ url: 'https://user:pw@example.com/hook' })],
  ['a URL with a fragment', 'INVALID_URL', 'request.url', request({ url: 'https://example.com/hook#part' })],
  ['a URL over 2048 bytes', 'INVALID_URL', 'request.url', request({ url: `https://example.com/${'a'.repeat(2040)}` })],
  ['a URL that is no URL', 'INVALID_URL', 'request.url', request({ url: 'not a url' })],
  ['a loopback destination', 'DESTINATION_NOT_ALLOWED', 'request.url', request({ url: 'https://127.0.0.1/hook' })],
  ['a private destination', 'DESTINATION_NOT_ALLOWED', 'request.url', request({ url: 'https://10.1.2.3/hook' })],
  ['an IPv6 loopback destination', 'DESTINATION_NOT_ALLOWED', 'request.url', request({ url: 'https://[::1]/hook' })],
  ['a link-local destination', 'DESTINATION_NOT_ALLOWED', 'request.url', request({ url: 'https://169.254.169.254/latest' })],
  ['a Host header', 'INVALID_HEADERS', 'request.headers.Host', request({ headers: { Host: 'example.org' } })],
  ['a Content-Length header', 'INVALID_HEADERS', 'request.headers.Content-Length', request({ headers: { 'Content-Length': '1' } })],
  ['a Transfer-Encoding header', 'INVALID_HEADERS', 'request.headers.Transfer-Encoding', request({ headers: { 'Transfer-Encoding': 'chunked' } })],
  ['a Service-Schedule-Id header', 'INVALID_HEADERS', 'request.headers.Service-Schedule-Id', request({ headers: { 'Service-Schedule-Id': 'sch_x' } })],
  ['a Service-Signature header', 'INVALID_HEADERS', 'request.headers.Service-Signature', request({ headers: { 'Service-Signature': 'v1=x' } })],
  ['a header name with a space', 'INVALID_HEADERS', 'request.headers.Bad Name', request({ headers: { 'Bad Name': 'x' } })],
  ['a header value with CR LF', 'INVALID_HEADERS', 'request.headers.X-A', request({ headers: { 'X-A': 'a\r\nInjected: 1' } })],
  ['the same header twice', 'INVALID_HEADERS', 'request.headers.x-a', request({ headers: { 'X-A': '1', 'x-a': '2' } })],
  ['65 headers', 'INVALID_HEADERS', 'request.headers', request({ headers: headers(65) })],
  ['headers over 32 KiB together', 'INVALID_HEADERS', 'request.headers', request({ headers: headers(5, 8 * KIB) })],
  ...[-1, 20, 100].map((r): [string, string, string, Change] => [`retry ${r}`, 'INVALID_RETRY', 'request.retry', request({ retry: r })]),
  ['retry 1.5', 'INVALID_FIELD', 'request.retry', request({ retry: 1.5 })],
  ['an unknown top-level field', 'UNKNOWN_FIELD', 'colour', (d) => { d.colour = 'blue'; }],
  ['a status on create', 'UNKNOWN_FIELD', 'status', (d) => { d.status = 'paused'; }],
  ['a request method (deliveries always POST)', 'UNKNOWN_FIELD', 'request.method', request({ method: 'GET' })],
  ['an unknown timing member', 'UNKNOWN_FIELD', 'timing.jitter', timing({ ...cron('0 3 * * *'), jitter: 5 })],
];

function variant(change: Change): Definition {
  const d = valid();
  change(d);
  return d;
}

describe('schedule input validation', () => {
  const f = useFerry();
  /** A project whose list must stay empty: every call here is refused. */
  let empty: Schedules;
  /** A project with one schedule to patch, and a second to make pages. */
  let owner: Schedules;
  let target: ScheduleDetail;

  beforeAll(async () => {
    empty = (await scheduleProject(f)).schedules;
    owner = (await scheduleProject(f)).schedules;
    await owner.created(minimal(`${DEST}/other`));
    const s = await owner.created({ name: 'target', timing: cron('0 3 * * *'), request: { url: DEST, body: { v: 1 }, headers: { 'X-A': 'a' }, retry: 2 } });
    target = await owner.detail(s.id);
  });

  it.each(CREATE_CASES)('create refuses %s: 422 %s at %s, storing nothing', async (_what, code, field, change) => {
    expectError(await empty.create(variant(change)), 422, code, field);
    expect(await empty.ids()).toEqual([]);
  });

  it('create refuses a body over 256 KiB with 413 PAYLOAD_TOO_LARGE at request.body, storing nothing', async () => {
    expectError(await empty.create(variant(request({ body: jsonStringOf(256 * KIB + 1) }))), 413, 'PAYLOAD_TOO_LARGE', 'request.body');
    expect(await empty.ids()).toEqual([]);
  });

  it('create refuses a whole request over 512 KiB with 413 PAYLOAD_TOO_LARGE, storing nothing', async () => {
    // The body alone is within its limit; the request text (padded with JSON whitespace) is not.
    const text = JSON.stringify(variant(request({ body: jsonStringOf(200 * KIB) }))) + ' '.repeat(320 * KIB);
    const res = await empty.api.call('POST', '/schedules', { body: text, headers: { 'content-type': 'application/json', 'idempotency-key': newKey() } });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(await empty.ids()).toEqual([]);
  });

  it('create requires an Idempotency-Key of 1 to 255 bytes', async () => {
    expectError(await empty.create(valid(), null), 422, 'INVALID_IDEMPOTENCY_KEY');
    expectError(await empty.create(valid(), ''), 422, 'INVALID_IDEMPOTENCY_KEY');
    expectError(await empty.create(valid(), 'k'.repeat(256)), 422, 'INVALID_IDEMPOTENCY_KEY');
    expect(await empty.ids()).toEqual([]);
  });

  it('create refuses a body that is not a JSON object with 422, storing nothing', async () => {
    const headers = { 'content-type': 'application/json', 'idempotency-key': newKey() };
    expect((await empty.api.call('POST', '/schedules', { body: '{"name": "x",', headers })).status).toBe(422);
    expect((await empty.api.call('POST', '/schedules', { body: '[]', headers })).status).toBe(422);
    expect(await empty.ids()).toEqual([]);
  });

  it('accepts every limit at its boundary', async () => {
    const { schedules } = await scheduleProject(f);
    const accepted = async (d: Definition, key = newKey()) => {
      const res = await schedules.create(d, key);
      expect(res.status, JSON.stringify(res.body.error)).toBe(201);
      return res.body.data;
    };
    expect((await accepted(variant((d) => { d.name = 'é'.repeat(60); }))).name).toBe('é'.repeat(60));
    expect((await accepted(variant((d) => { d.name = `  ${'a'.repeat(120)}\n`; }))).name).toBe('a'.repeat(120));
    expect((await accepted(variant(timing(interval(60))))).timing.every_seconds).toBe(60);
    expect((await accepted(variant(timing(interval(2_592_000))))).timing.every_seconds).toBe(2_592_000);
    expect((await accepted(variant(request({ retry: 19 })))).retry).toBe(19);
    const many = await accepted(variant(request({ headers: headers(64) })));
    expect(Object.keys((await schedules.detail(many.id)).request.headers)).toHaveLength(64);
    const big = await accepted(variant(request({ body: jsonStringOf(256 * KIB) })));
    expect((await schedules.detail(big.id)).request.body).toBe(jsonStringOf(256 * KIB));
    await accepted(valid(), 'k'.repeat(255));
    expect(await schedules.ids()).toHaveLength(8);
  });

  // [what, code, field (undefined: not pinned), PATCH body]
  const PATCH_CASES: Array<[string, string, string | undefined, Record<string, unknown>]> = [
    ['an empty body', 'MISSING_FIELD', undefined, {}],
    ['an empty name', 'INVALID_NAME', 'name', { name: '  ' }],
    ['a macro cron', 'INVALID_TIMING', 'timing.expression', { timing: cron('@daily') }],
    ['a never-firing cron', 'INVALID_TIMING', 'timing.expression', { timing: cron('0 0 30 2 *') }],
    ['an unknown zone', 'INVALID_TIMING', 'timing.timezone', { timing: cron('0 3 * * *', 'Nowhere/Land') }],
    ['a 59 s interval', 'INVALID_TIMING', 'timing.every_seconds', { timing: interval(59) }],
    ['a valid name with a bad timing', 'INVALID_TIMING', 'timing.every_seconds', { name: 'changed', timing: interval(90) }],
    ['a request without url', 'MISSING_FIELD', 'request.url', { request: { body: { v: 2 } } }],
    ['a loopback URL', 'DESTINATION_NOT_ALLOWED', 'request.url', { request: { url: 'https://127.0.0.1/x' } }],
    ['an http URL', 'INVALID_URL', 'request.url', { request: { url: 'http://example.com/x' } }],
    ['a reserved header', 'INVALID_HEADERS', 'request.headers.Host', { request: { url: DEST, headers: { Host: 'x' } } }],
    ['retry 20', 'INVALID_RETRY', 'request.retry', { request: { url: DEST, retry: 20 } }],
    ['an unknown field', 'UNKNOWN_FIELD', 'colour', { colour: 'blue' }],
    ['a status', 'UNKNOWN_FIELD', 'status', { status: 'paused' }],
  ];

  it.each(PATCH_CASES)('PATCH refuses %s: 422 %s at %s, changing nothing', async (_what, code, field, body) => {
    expectError(await owner.patch(target.id, body), 422, code, field);
    expect(await owner.detail(target.id)).toEqual(target);
  });

  it('PATCH refuses a body over 256 KiB with 413 PAYLOAD_TOO_LARGE at request.body, changing nothing', async () => {
    expectError(await owner.patch(target.id, { request: { url: DEST, body: jsonStringOf(256 * KIB + 1) } }), 413, 'PAYLOAD_TOO_LARGE', 'request.body');
    expect(await owner.detail(target.id)).toEqual(target);
  });

  it.each([
    ['limit=0', 'INVALID_LIMIT'],
    ['limit=101', 'INVALID_LIMIT'],
    ['limit=-1', 'INVALID_LIMIT'],
    // Not an integer at all: refused while the query is read, as on GET /requests.
    ['limit=ten', 'INVALID_FIELD'],
    ['limit=1.5', 'INVALID_FIELD'],
    ['cursor=garbage', 'INVALID_CURSOR'],
    ['limit=2&cursor=garbage', 'INVALID_CURSOR'],
  ])('GET /schedules?%s is 422 %s', async (query, code) => {
    expectError(await owner.list(query), 422, code);
  });

  it('GET /schedules refuses a tampered cursor and a cursor of the request list with 422 INVALID_CURSOR', async () => {
    const page = await owner.list('limit=1');
    const cursor = (page.body.meta as unknown as { next_cursor: string }).next_cursor;
    expect(typeof cursor).toBe('string');
    const tampered = cursor.slice(0, -2) + (cursor.endsWith('AA') ? 'BB' : 'AA');
    expectError(await owner.list(`limit=1&cursor=${encodeURIComponent(tampered)}`), 422, 'INVALID_CURSOR');

    for (let i = 0; i < 2; i++) expect((await owner.api.send({ url: `${DEST}/${i}` })).status).toBe(202);
    const requests = await owner.api.call<{ next_cursor: string }>('GET', '/requests?limit=1');
    const requestCursor = requests.body.data.next_cursor;
    expect(typeof requestCursor).toBe('string');
    expectError(await owner.list(`cursor=${encodeURIComponent(requestCursor)}`), 422, 'INVALID_CURSOR');
    expectError(await owner.list(`limit=1&cursor=${encodeURIComponent(requestCursor)}`), 422, 'INVALID_CURSOR');
  });

  it('answers every schedule route without an API key with 401', async () => {
    const calls: Array<[string, string]> = [
      ['POST', '/schedules'],
      ['GET', '/schedules'],
      ['POST', '/schedules/preview'],
      ['GET', `/schedules/${target.id}`],
      ['PATCH', `/schedules/${target.id}`],
      ['POST', `/schedules/${target.id}/pause`],
      ['POST', `/schedules/${target.id}/resume`],
      ['DELETE', `/schedules/${target.id}`],
    ];
    for (const [method, path] of calls) {
      const json = path === '/schedules/preview' ? { timing: cron('0 3 * * *') } : method === 'PATCH' || (method === 'POST' && path === '/schedules') ? valid() : undefined;
      const res = await owner.api.call(method, path, { auth: null, json, headers: { 'idempotency-key': newKey() } });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.error?.code).toBe('UNAUTHENTICATED');
    }
    expect(await owner.detail(target.id)).toEqual(target);
  });
});
