import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/domain/errors.js';
import {
  errorFromResponse, AuthenticationError, BadRequestError, ConflictError, FerryApiError, FerryError, InternalServerError,
  MethodNotAllowedError, NotFoundError, PayloadTooLargeError, PermissionDeniedError, RateLimitError, ServiceUnavailableError,
  UnprocessableEntityError,
} from '../../sdk/src/errors.js';

const envelope = (code: string, field: string | null = null) =>
  JSON.stringify({ success: false, data: null, error: { code, message: `about ${code}`, field }, meta: null, request_id: 'rid-1' });

describe('SDK error mapping', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [405, MethodNotAllowedError],
    [409, ConflictError],
    [413, PayloadTooLargeError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [501, InternalServerError],
    [507, InternalServerError],
    [502, ServiceUnavailableError],
    [503, ServiceUnavailableError],
    [504, ServiceUnavailableError],
  ])('maps %i to %o', (status, ErrorClass) => {
    const err = errorFromResponse(status, new Headers(), envelope('INTERNAL'));
    expect(err).toBeInstanceOf(ErrorClass);
    expect(err).toBeInstanceOf(FerryApiError);
    expect(err).toBeInstanceOf(FerryError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe(ErrorClass.name);
    expect(err.status).toBe(status);
  });

  it('keeps other statuses as a plain FerryApiError', () => {
    for (const status of [402, 410, 418, 451, 200]) expect(errorFromResponse(status, new Headers(), '').constructor).toBe(FerryApiError);
  });

  it('takes code, message, field and request_id from the envelope', () => {
    const headers = new Headers({ 'Ferry-Request-Id': 'rid-header' });
    const err = errorFromResponse(422, headers, envelope('INVALID_URL', 'requests[2].url'));
    expect(err).toMatchObject({ code: 'INVALID_URL', message: 'about INVALID_URL', field: 'requests[2].url', requestId: 'rid-1' });
    expect(err.headers).toBe(headers);
    expect(String(err)).toBe('UnprocessableEntityError: about INVALID_URL');
  });

  it('reports anything but an envelope as UNEXPECTED_RESPONSE, with the header request ID if any', () => {
    for (const text of ['<html>Bad gateway</html>', '', '{"error": "nope"}', 'null', '{"error": {"code": 5}}']) {
      const err = errorFromResponse(502, new Headers({ 'Ferry-Request-Id': 'rid-h' }), text);
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err).toMatchObject({ code: 'UNEXPECTED_RESPONSE', field: null, requestId: 'rid-h', message: expect.stringContaining('502') });
    }
    expect(errorFromResponse(500, new Headers(), 'oops').requestId).toBeNull();
  });

  it('keeps the Retry-After wait on a RateLimitError only', () => {
    expect(errorFromResponse(429, new Headers(), envelope('MONTHLY_ALLOWANCE_EXCEEDED'), 2)).toMatchObject({ retryAfterSeconds: 2 });
    expect(errorFromResponse(429, new Headers(), envelope('MONTHLY_ALLOWANCE_EXCEEDED'))).toMatchObject({ retryAfterSeconds: null });
    expect(errorFromResponse(503, new Headers(), '', 2)).not.toHaveProperty('retryAfterSeconds');
  });
});

describe("the package README's error table", () => {
  const readme = readFileSync(new URL('../../sdk/README.md', import.meta.url), 'utf8');
  const table = readme.slice(readme.indexOf('## Errors'), readme.indexOf('## Retries'));
  // Rows of the table of classes: `| \`Class\` | when | typical codes |`.
  const rows = table.split('\n').filter((line) => line.startsWith('| `')).map((line) => {
    const [, name, , codes] = line.split('|').map((cell) => cell.trim());
    return { name: name!.replaceAll('`', ''), codes: [...codes!.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!) };
  });

  it('lists each code under the class the client throws for the status Ferry answers it with', () => {
    expect(rows.map((r) => r.name)).toContain('UnprocessableEntityError');
    const wrong: string[] = [];
    for (const { name, codes } of rows) {
      for (const code of codes) {
        const entry = ERROR_CATALOGUE[code as ErrorCode];
        if (entry === undefined) {
          wrong.push(`${code} (${name}) is not in the catalogue`);
          continue;
        }
        const thrown = errorFromResponse(entry.status, new Headers(), envelope(code)).constructor.name;
        if (thrown !== name) wrong.push(`${code} is a ${entry.status}, thrown as ${thrown}, listed under ${name}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
