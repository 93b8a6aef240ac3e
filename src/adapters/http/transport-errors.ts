/**
 * Errors raised inside the connection path. Each carries the phase it happened in, so the outcome mapping does not
 * have to guess from error codes that mean different things at different moments (ECONNRESET, ETIMEOUT).
 */

/** The destination resolved or connected to an address Ferry does not deliver to. Nothing was sent. */
export class BlockedDestinationError extends Error {
  readonly code = 'ERR_DESTINATION_BLOCKED';
  constructor(message: string) {
    super(message);
    this.name = 'BlockedDestinationError';
  }
}

/** The name lookup itself failed; `code` is the resolver's (ENOTFOUND, EAI_AGAIN, ...). */
export class DnsLookupError extends Error {
  readonly code: string;
  constructor(hostname: string, cause: NodeJS.ErrnoException) {
    super(`Resolving ${hostname} failed: ${cause.message}`, { cause });
    this.name = 'DnsLookupError';
    this.code = typeof cause.code === 'string' ? cause.code : 'EDNS';
  }
}

/** The TCP connection was made but the TLS handshake did not complete, whatever the underlying code. */
export class TlsHandshakeError extends Error {
  readonly code: string;
  constructor(cause: NodeJS.ErrnoException) {
    super(cause.message, { cause });
    this.name = 'TlsHandshakeError';
    this.code = typeof cause.code === 'string' ? cause.code : 'ERR_TLS_HANDSHAKE';
  }
}

/** Connecting (TCP and TLS together) took longer than the connector allows. */
export class ConnectTimeoutError extends Error {
  readonly code = 'ERR_CONNECT_TIMEOUT';
  constructor(timeoutMs: number) {
    super(`Connecting took longer than ${timeoutMs} ms.`);
    this.name = 'ConnectTimeoutError';
  }
}

/** The transport was closed while a connection was still being set up. */
export class TransportClosedError extends Error {
  readonly code = 'ERR_TRANSPORT_CLOSED';
  constructor() {
    super('The transport was closed.');
    this.name = 'TransportClosedError';
  }
}

/** The socket closed before it connected (or finished the handshake) without reporting an error of its own. */
export function closedEarlyError(): NodeJS.ErrnoException {
  return Object.assign(new Error('The socket closed before the connection was established.'), { code: 'ECONNRESET' });
}
