import type { AttemptOutcome } from '../../domain/delivery/outcome.js';
import { BlockedDestinationError, ConnectTimeoutError, DnsLookupError, TlsHandshakeError } from './transport-errors.js';

// Failures of Ferry's own request, not of the network: reporting them as a destination problem would hide a bug.
const PROGRAMMING_ERRORS = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_INVALID_URL',
]);

// Resolver codes (getaddrinfo and c-ares) for lookups that did not go through the guarded lookup.
const DNS_CODES = new Set([
  'ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL', 'ENOTIMP',
  'EFORMERR', 'EBADNAME', 'EBADRESP', 'ETIMEOUT',
]);

// Certificate verification failures are reported with OpenSSL's own names, not with an ERR_ prefix.
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'HOSTNAME_MISMATCH', 'CERT_UNTRUSTED',
  'CERT_REJECTED', 'INVALID_CA', 'INVALID_PURPOSE', 'PATH_LENGTH_EXCEEDED',
]);

// The transport was closed under a waiting request: that only happens when Ferry shuts the transport down.
const SHUTDOWN_CODES = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED', 'ERR_TRANSPORT_CLOSED']);

/**
 * What a failed attempt means for the delivery. Every network event becomes an outcome; only errors that reveal a
 * bug in the request Ferry built are thrown again.
 */
export function outcomeOfError(err: unknown): AttemptOutcome {
  if (err instanceof BlockedDestinationError) return { kind: 'blocked', message: err.message };
  if (err instanceof DnsLookupError) return { kind: 'dns_error', code: err.code, message: err.message };
  if (err instanceof TlsHandshakeError) return { kind: 'tls_error', code: err.code, message: err.message };
  if (err instanceof ConnectTimeoutError) return { kind: 'timeout', phase: 'connect' };

  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (PROGRAMMING_ERRORS.has(code)) throw err;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'timeout', phase: 'connect' };
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return { kind: 'timeout', phase: 'headers' };
  if (code === 'UND_ERR_BODY_TIMEOUT') return { kind: 'timeout', phase: 'body' };
  if (SHUTDOWN_CODES.has(code)) return { kind: 'aborted' };
  if (DNS_CODES.has(code)) return { kind: 'dns_error', code, message };
  if (isTlsCode(code)) return { kind: 'tls_error', code, message };
  // ECONNREFUSED, ECONNRESET, EPIPE, EHOSTUNREACH, UND_ERR_SOCKET (closed early), HPE_* (unparseable response) ...
  return { kind: 'connection_error', code: code === '' ? 'UNKNOWN' : code, message };
}

function isTlsCode(code: string): boolean {
  return code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.startsWith('ERR_OSSL_')
    || code.startsWith('CERT_') || CERTIFICATE_CODES.has(code);
}

function codeOf(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Happy Eyeballs reports every failed address together; the first one is representative.
  const inner = (err as { errors?: unknown }).errors;
  return Array.isArray(inner) && inner.length > 0 ? codeOf(inner[0]) : '';
}
