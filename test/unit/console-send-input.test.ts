import { describe, expect, it } from 'vitest';
import { buildInput, EMPTY_DRAFT, flowKeysOf, formFieldOf, type SendDraft } from '../../src/console/requests/send-input.js';

const draft = (fields: Partial<SendDraft>): SendDraft => ({ ...EMPTY_DRAFT, url: 'https://example.com/hook', ...fields });

describe('buildInput', () => {
  it('sends the URL trimmed and the method, and nothing that was left empty', () => {
    expect(buildInput(draft({ url: '  https://example.com/hook \n' }))).toEqual({ ok: true, input: { url: 'https://example.com/hook', method: 'POST' } });
    expect(buildInput(draft({ method: '' }))).toEqual({ ok: true, input: { url: 'https://example.com/hook' } });
    // An empty URL is the API's to refuse, with its own message.
    expect(buildInput(draft({ url: '' }))).toEqual({ ok: true, input: { url: '', method: 'POST' } });
  });

  it('reads one "Name: value" header a line, skipping blank lines and trimming both sides', () => {
    const built = buildInput(draft({ headers: 'X-Id: 42\r\n\n  Authorization :  Bearer a:b  \nX-Empty:\n' }));
    expect(built).toEqual({
      ok: true,
      input: { url: 'https://example.com/hook', method: 'POST', headers: { 'X-Id': '42', Authorization: 'Bearer a:b', 'X-Empty': '' } },
    });
  });

  it('keeps the last of a repeated header name', () => {
    const built = buildInput(draft({ headers: 'X-Id: 1\nX-Id: 2' }));
    expect(built.ok && built.input.headers).toEqual({ 'X-Id': '2' });
  });

  it('sends no headers when there are only blank lines', () => {
    const built = buildInput(draft({ headers: '\n   \n' }));
    expect(built.ok && 'headers' in built.input).toBe(false);
  });

  it('refuses a header line without a colon, or with no name before it, naming the line', () => {
    expect(buildInput(draft({ headers: 'X-Id: 1\n\nX-Broken' }))).toEqual({ ok: false, field: 'headers', message: 'Line 3 is not "Name: value".' });
    expect(buildInput(draft({ headers: ': no name' }))).toEqual({ ok: false, field: 'headers', message: 'Line 1 is not "Name: value".' });
  });

  it('sends the body as the JSON it holds', () => {
    const body = (text: string) => {
      const built = buildInput(draft({ body: text }));
      return built.ok ? built.input.body : 'refused';
    };
    expect(body('{"order": 42, "items": [1, 2]}')).toEqual({ order: 42, items: [1, 2] });
    expect(body('"plain text"')).toBe('plain text');
    expect(body('0')).toBe(0);
    expect(body('false')).toBe(false);
    expect(body('null')).toBeNull();
    expect(body('   ')).toBeUndefined();
  });

  it('refuses a body that is not JSON', () => {
    for (const text of ['hello', '{"order": 42', "{'a': 1}", 'undefined']) {
      const built = buildInput(draft({ body: text }));
      expect(built.ok, text).toBe(false);
      expect(!built.ok && built.field).toBe('body');
      expect(!built.ok && built.message).toMatch(/not JSON/);
    }
  });

  it('sends a delay only when delay is chosen and given, trimmed', () => {
    expect(buildInput(draft({ when: 'delay', delay: ' 30s ' }))).toMatchObject({ ok: true, input: { delay: '30s' } });
    const input = (fields: Partial<SendDraft>) => {
      const built = buildInput(draft(fields));
      return built.ok ? built.input : null;
    };
    expect(input({ when: 'delay', delay: '  ' })).not.toHaveProperty('delay');
    expect(input({ when: 'now', delay: '30s' })).not.toHaveProperty('delay');
    expect(input({ when: 'at', delay: '30s', deliverAt: '2026-11-25T09:00' })).not.toHaveProperty('delay');
    // The API judges the value itself.
    expect(input({ when: 'delay', delay: 'soon' })).toHaveProperty('delay', 'soon');
  });

  it('sends a delivery time only when a time is chosen and given, read as UTC', () => {
    const input = (fields: Partial<SendDraft>) => {
      const built = buildInput(draft(fields));
      return built.ok ? built.input : null;
    };
    expect(input({ when: 'at', deliverAt: '2026-11-25 09:00' })).toHaveProperty('deliver_at', '2026-11-25T09:00:00Z');
    expect(input({ when: 'at', deliverAt: '2026-11-25 21:00:30' })).toHaveProperty('deliver_at', '2026-11-25T21:00:30Z');
    expect(input({ when: 'at', deliverAt: '2026-11-25T09:00' })).toHaveProperty('deliver_at', '2026-11-25T09:00:00Z');
    expect(input({ when: 'at', deliverAt: '' })).not.toHaveProperty('deliver_at');
    expect(input({ when: 'at', deliverAt: '  ' })).not.toHaveProperty('deliver_at');
    expect(input({ when: 'now', deliverAt: '2026-11-25T09:00' })).not.toHaveProperty('deliver_at');
    expect(input({ when: 'delay', delay: '5m', deliverAt: '2026-11-25T09:00' })).not.toHaveProperty('deliver_at');
  });

  it('refuses a delivery time that is not a UTC time at its field, rather than send another instant', () => {
    expect(buildInput(draft({ when: 'at', deliverAt: '11/25/2026, 09:00 PM' }))).toEqual({
      ok: false,
      field: 'deliver_at',
      message: 'Write a UTC time as YYYY-MM-DD HH:MM (24-hour, seconds optional), e.g. 2026-11-25 09:30.',
    });
    expect(buildInput(draft({ when: 'at', deliverAt: '2026-02-30 09:00' }))).toMatchObject({ ok: false, field: 'deliver_at' });
    // Only a chosen delivery time is read.
    expect(buildInput(draft({ when: 'now', deliverAt: 'whenever' }))).toMatchObject({ ok: true });
  });

  it('sends attempts as a number and the timeout trimmed, when given', () => {
    expect(buildInput(draft({ maxAttempts: '5', timeout: ' 10s ' }))).toMatchObject({ ok: true, input: { retry: { max_attempts: 5 }, timeout: '10s' } });
    const built = buildInput(draft({ maxAttempts: ' ', timeout: '' }));
    expect(built.ok && ['retry' in built.input, 'timeout' in built.input]).toEqual([false, false]);
  });

  it('sends metadata as the JSON it holds, and refuses metadata that is not JSON', () => {
    expect(buildInput(draft({ metadata: '{"order": "42"}' }))).toMatchObject({ ok: true, input: { metadata: { order: '42' } } });
    const built = buildInput(draft({ metadata: 'order=42' }));
    expect(built.ok).toBe(false);
    expect(!built.ok && built.field).toBe('metadata');
    // Valid JSON of another shape is the API's to refuse.
    expect(buildInput(draft({ metadata: '[1]' }))).toMatchObject({ ok: true, input: { metadata: [1] } });
    expect(buildInput(draft({ metadata: '  ' }))).toEqual({ ok: true, input: { url: 'https://example.com/hook', method: 'POST' } });
  });

  it('names the first field it refuses, in the order of the form', () => {
    expect(buildInput(draft({ headers: 'broken', body: 'nope', metadata: 'nope' }))).toMatchObject({ ok: false, field: 'headers' });
    expect(buildInput(draft({ body: 'nope', metadata: 'nope' }))).toMatchObject({ ok: false, field: 'body' });
  });

  it('sends flow keys as the array the comma-separated text names, and none when empty', () => {
    expect(buildInput(draft({ flowKeys: ' customer:42 ,vendor:acme ' }))).toMatchObject({ ok: true, input: { flow_keys: ['customer:42', 'vendor:acme'] } });
    const none = buildInput(draft({ flowKeys: '  ' }));
    expect(none.ok && 'flow_keys' in none.input).toBe(false);
  });

  it('does not put the idempotency key in the input', () => {
    expect(buildInput(draft({ idempotencyKey: 'order-42' }))).toEqual({ ok: true, input: { url: 'https://example.com/hook', method: 'POST' } });
  });
});

describe('flowKeysOf', () => {
  it('splits on commas and trims each key, as the Flow-Keys header does', () => {
    expect(flowKeysOf('a')).toEqual(['a']);
    expect(flowKeysOf('a, b ,\tc')).toEqual(['a', 'b', 'c']);
    expect(flowKeysOf('')).toEqual([]);
    expect(flowKeysOf(' \t ')).toEqual([]);
  });

  it('keeps what the API is to refuse: an empty key, a key twice, five keys, a key with a space', () => {
    expect(flowKeysOf('a,,b')).toEqual(['a', '', 'b']);
    expect(flowKeysOf('a,')).toEqual(['a', '']);
    expect(flowKeysOf('a, a')).toEqual(['a', 'a']);
    expect(flowKeysOf('a,b,c,d,e')).toHaveLength(5);
    expect(flowKeysOf('my key')).toEqual(['my key']);
  });
});

describe('formFieldOf', () => {
  it('finds the form field of the API field by its first segment', () => {
    expect(formFieldOf('url')).toBe('url');
    expect(formFieldOf('headers.X-Id')).toBe('headers');
    expect(formFieldOf('headers')).toBe('headers');
    expect(formFieldOf('retry.max_attempts')).toBe('retry');
    expect(formFieldOf('body')).toBe('body');
    expect(formFieldOf('metadata.order')).toBe('metadata');
    expect(formFieldOf('metadata[0]')).toBe('metadata');
    expect(formFieldOf('deliver_at')).toBe('deliver_at');
    expect(formFieldOf('delay')).toBe('delay');
    expect(formFieldOf('timeout')).toBe('timeout');
    expect(formFieldOf('METHOD')).toBe('method');
    expect(formFieldOf('flow_keys')).toBe('flow_keys');
    expect(formFieldOf('flow_keys[1]')).toBe('flow_keys');
  });

  it('knows the idempotency key by both its header and its field name', () => {
    expect(formFieldOf('Idempotency-Key')).toBe('idempotency_key');
    expect(formFieldOf('idempotency_key')).toBe('idempotency_key');
  });

  it('answers null for no field or one the form does not have', () => {
    expect(formFieldOf(null)).toBeNull();
    expect(formFieldOf('')).toBeNull();
    expect(formFieldOf('cursor')).toBeNull();
    expect(formFieldOf('urls')).toBeNull();
  });
});
