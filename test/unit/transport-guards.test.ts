import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createGuardedLookup } from '../../src/adapters/http/guarded-lookup.js';
import { outcomeOfError } from '../../src/adapters/http/outcome-of-error.js';
import {
  BlockedDestinationError, ConnectTimeoutError, DnsLookupError, TlsHandshakeError, TransportClosedError,
} from '../../src/adapters/http/transport-errors.js';

function answering(...addresses: string[]): LookupFunction {
  return (_hostname, _options, callback) => {
    callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
}

function failing(code: string): LookupFunction {
  return (hostname, _options, callback) => callback(Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code }), '');
}

interface LookupResult {
  readonly err: NodeJS.ErrnoException | null;
  readonly address: string | LookupAddress[];
  readonly family: number | undefined;
}

function resolve(lookup: LookupFunction, all: boolean): Promise<LookupResult> {
  return new Promise((done) => {
    lookup('host.example.com', { all }, (err, address, family) => done({ err, address, family }));
  });
}

describe('guarded lookup', () => {
  it('drops non-public answers and keeps the public ones in order', async () => {
    const lookup = createGuardedLookup(answering('10.0.0.1', '93.184.216.34', '::1', '2606:2800:220:1::1', '::ffff:127.0.0.1'), false);
    const { err, address } = await resolve(lookup, true);
    expect(err).toBeNull();
    expect(address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
  });

  it('answers in the single-address form when asked for one', async () => {
    const lookup = createGuardedLookup(answering('127.0.0.1', '93.184.216.34'), false);
    expect(await resolve(lookup, false)).toEqual({ err: null, address: '93.184.216.34', family: 4 });
  });

  it('accepts a resolver that answers in the single-address form', async () => {
    const single: LookupFunction = (_hostname, _options, callback) => callback(null, '127.0.0.1', 4);
    const { err } = await resolve(createGuardedLookup(single, false), true);
    expect(err).toBeInstanceOf(BlockedDestinationError);
  });

  it('fails as blocked when only non-public answers remain', async () => {
    const { err } = await resolve(createGuardedLookup(answering('127.0.0.1', '169.254.169.254'), false), true);
    expect(err).toBeInstanceOf(BlockedDestinationError);
    expect(err?.message).toContain('169.254.169.254');
  });

  it('fails as a DNS error with the resolver code when the lookup fails', async () => {
    const { err } = await resolve(createGuardedLookup(failing('ENOTFOUND'), false), true);
    expect(err).toBeInstanceOf(DnsLookupError);
    expect(err?.code).toBe('ENOTFOUND');
  });

  it('fails as a DNS error when the resolver answers nothing', async () => {
    const { err } = await resolve(createGuardedLookup(answering(), false), true);
    expect(err).toBeInstanceOf(DnsLookupError);
    expect(err?.code).toBe('ENODATA');
  });

  it('lets every answer through when private destinations are allowed', async () => {
    const { address } = await resolve(createGuardedLookup(answering('127.0.0.1', '10.0.0.1'), true), true);
    expect(address).toEqual([{ address: '127.0.0.1', family: 4 }, { address: '10.0.0.1', family: 4 }]);
  });
});

function errno(code: string, message = code): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

describe('outcome of a transport error', () => {
  it('maps the connection path errors by their phase', () => {
    expect(outcomeOfError(new BlockedDestinationError('no'))).toEqual({ kind: 'blocked', message: 'no' });
    expect(outcomeOfError(new DnsLookupError('x.example', errno('EAI_AGAIN')))).toMatchObject({ kind: 'dns_error', code: 'EAI_AGAIN' });
    expect(outcomeOfError(new TlsHandshakeError(errno('ECONNRESET')))).toMatchObject({ kind: 'tls_error', code: 'ECONNRESET' });
    expect(outcomeOfError(new ConnectTimeoutError(10))).toEqual({ kind: 'timeout', phase: 'connect' });
    expect(outcomeOfError(new TransportClosedError())).toEqual({ kind: 'aborted' });
  });

  it.each([
    ['ENOTFOUND', 'dns_error'], ['EAI_AGAIN', 'dns_error'],
    ['ECONNREFUSED', 'connection_error'], ['ECONNRESET', 'connection_error'], ['EPIPE', 'connection_error'],
    ['UND_ERR_SOCKET', 'connection_error'], ['EHOSTUNREACH', 'connection_error'], ['HPE_INVALID_CONSTANT', 'connection_error'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls_error'], ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls_error'],
    ['CERT_HAS_EXPIRED', 'tls_error'], ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls_error'], ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls_error'],
    ['UND_ERR_CLOSED', 'aborted'], ['UND_ERR_DESTROYED', 'aborted'],
  ])('maps %s to %s', (code, kind) => {
    expect(outcomeOfError(errno(code)).kind).toBe(kind);
  });

  it.each([
    ['UND_ERR_CONNECT_TIMEOUT', 'connect'], ['UND_ERR_HEADERS_TIMEOUT', 'headers'], ['UND_ERR_BODY_TIMEOUT', 'body'],
  ])('maps %s to a %s timeout', (code, phase) => {
    expect(outcomeOfError(errno(code))).toEqual({ kind: 'timeout', phase });
  });

  it('takes the first code of an aggregate error from trying several addresses', () => {
    const aggregate = new AggregateError([errno('ECONNREFUSED'), errno('ENETUNREACH')], 'all failed');
    expect(outcomeOfError(aggregate)).toMatchObject({ kind: 'connection_error', code: 'ECONNREFUSED' });
  });

  it('reports an error without a code as a connection error rather than throwing', () => {
    expect(outcomeOfError(new Error('odd'))).toMatchObject({ kind: 'connection_error', code: 'UNKNOWN', message: 'odd' });
  });

  it('throws errors that reveal a malformed request instead of blaming the destination', () => {
    const invalid = errno('UND_ERR_INVALID_ARG', 'invalid transfer-encoding header');
    expect(() => outcomeOfError(invalid)).toThrow(invalid);
  });
});
