import { describe, expect, it } from 'vitest';
import { Ferry } from '../../sdk/src/index.js';

describe('SDK client options', () => {
  const base = { baseUrl: 'https://ferry.example.com', apiKey: 'fry_k' };

  it('builds with a base URL and a key, with or without a path and trailing slash', () => {
    expect(new Ferry(base).requests).toBeDefined();
    expect(new Ferry({ ...base, baseUrl: 'http://127.0.0.1:8080/ferry/', timeoutMs: 1, maxRetries: 0 }).schedules).toBeDefined();
  });

  it.each([
    ['a base URL that is not http(s)', { baseUrl: 'ftp://ferry.example.com' }],
    ['a missing base URL', { baseUrl: undefined }],
    ['an empty key', { apiKey: '' }],
    ['a negative maxRetries', { maxRetries: -1 }],
    ['a fractional maxRetries', { maxRetries: 1.5 }],
    ['a NaN maxRetries', { maxRetries: Number.NaN }],
    ['a zero timeout', { timeoutMs: 0 }],
    ['an infinite timeout, which a timer would fire at once', { timeoutMs: Number.POSITIVE_INFINITY }],
  ])('refuses %s with a TypeError', (_, change) => {
    expect(() => new Ferry({ ...base, ...change } as ConstructorParameters<typeof Ferry>[0])).toThrow(TypeError);
  });

  it('refuses bad per-call options before sending anything', async () => {
    const ferry = new Ferry({ ...base, fetch: () => Promise.reject(new Error('nothing may be sent')) });
    await expect(ferry.requests.get('req_x', { maxRetries: -1 })).rejects.toThrow(TypeError);
    await expect(ferry.requests.get('req_x', { timeoutMs: -5 })).rejects.toThrow(TypeError);
    await expect(ferry.requests.send('https://example.com/', 'x', { forwardHeaders: { 'X-Bad': 'a\nb' } })).rejects.toThrow(TypeError);
  });
});
