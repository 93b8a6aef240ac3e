import { connect as netConnect, isIP, type LookupFunction, type NetConnectOpts, type Socket } from 'node:net';
import { connect as tlsConnect, type SecureContext, type TLSSocket } from 'node:tls';
import type { buildConnector } from 'undici';
import { isPublicAddress, normaliseAddress } from './address-policy.js';
import { TlsSessionCache } from './tls-session-cache.js';
import {
  BlockedDestinationError, ConnectTimeoutError, TlsHandshakeError, TransportClosedError, closedEarlyError,
} from './transport-errors.js';

/** Opens the raw TCP connection; tests replace it to make a socket land somewhere the lookup never said. */
export type TcpConnect = (options: NetConnectOpts) => Socket;

export interface GuardedConnectorOptions {
  readonly allowPrivate: boolean;
  /** Already guarded: it drops non-public answers. */
  readonly lookup: LookupFunction;
  readonly secureContext: SecureContext | undefined;
  readonly connectTimeoutMs: number;
  readonly tcpConnect?: TcpConnect;
}

export interface GuardedConnector {
  readonly connect: buildConnector.connector;
  /** Fails every connection still being set up, and every later one: closing must not wait for a silent peer. */
  close(): void;
}

const KEEP_ALIVE_INITIAL_DELAY_MS = 60_000;

/**
 * An undici connector that checks the connected peer before a single byte is written. The lookup guard only sees
 * names; this sees where the socket actually ended up, which also covers IP literals, DNS rebinding between lookup
 * and connect, and anything that resolves outside the lookup hook. The TLS handshake starts only after the check,
 * so a refused peer does not even receive a ClientHello.
 */
export function createGuardedConnector(opts: GuardedConnectorOptions): GuardedConnector {
  const tcpConnect = opts.tcpConnect ?? netConnect;
  const sessions = new TlsSessionCache();
  const pending = new Set<(err: Error) => void>();
  let closed = false;

  const connect: buildConnector.connector = ({ hostname, protocol, port, servername }, callback) => {
    if (closed) {
      // undici expects the callback on a later tick, as from a real connection attempt; a synchronous one re-enters it.
      process.nextTick(() => callback(new TransportClosedError(), null));
      return;
    }
    const secure = protocol === 'https:';
    const tcp = tcpConnect({
      host: hostname,
      port: Number(port) || (secure ? 443 : 80),
      lookup: opts.lookup,
      noDelay: true,
      keepAlive: true,
      keepAliveInitialDelay: KEEP_ALIVE_INITIAL_DELAY_MS,
    });
    let tlsSocket: TLSSocket | null = null;
    let settled = false;
    const timer = setTimeout(() => settle(new ConnectTimeoutError(opts.connectTimeoutMs)), opts.connectTimeoutMs);

    const settle = (err: Error | null): void => {
      if (settled) return;
      settled = true;
      pending.delete(settle);
      clearTimeout(timer);
      tcp.off('error', onTcpError).off('close', onClose).off('connect', onTcpConnect);
      if (err) {
        // A late error from a socket nobody reads any more must not become an uncaught exception.
        tcp.on('error', ignore).destroy();
        tlsSocket?.on('error', ignore).destroy();
        callback(err, null);
        return;
      }
      tcp.on('error', ignore);
      tlsSocket?.off('error', onTlsError).off('close', onClose);
      callback(null, tlsSocket ?? tcp);
    };

    const onTcpError = (err: Error): void => settle(tlsSocket ? new TlsHandshakeError(err) : err);
    const onTlsError = (err: Error): void => settle(new TlsHandshakeError(err));
    const onClose = (): void => onTcpError(closedEarlyError());

    const onTcpConnect = (): void => {
      const remote = tcp.remoteAddress;
      if (!opts.allowPrivate && (remote === undefined || !isPublicAddress(remote))) {
        settle(new BlockedDestinationError(
          `The connection to ${hostname} reached ${remote === undefined ? 'an unknown address' : normaliseAddress(remote)}, which is not a public address.`,
        ));
        return;
      }
      if (!secure) {
        settle(null);
        return;
      }
      // SNI must carry a name, never an address (RFC 6066 section 3).
      const sni = servername || (isIP(hostname) === 0 ? hostname : undefined);
      const sessionKey = `${sni ?? hostname}:${port}`;
      tlsSocket = tlsConnect({
        socket: tcp,
        host: hostname,
        ...(sni === undefined ? {} : { servername: sni }),
        ALPNProtocols: ['http/1.1'],
        ...(opts.secureContext === undefined ? {} : { secureContext: opts.secureContext }),
        ...sessionOption(sessions.get(sessionKey)),
      });
      tlsSocket.on('session', (session: Buffer) => sessions.set(sessionKey, session));
      tlsSocket.on('error', onTlsError).once('close', onClose);
      tlsSocket.once('secureConnect', () => settle(null));
    };

    pending.add(settle);
    tcp.on('error', onTcpError).once('close', onClose).once('connect', onTcpConnect);
  };

  return {
    connect,
    close() {
      closed = true;
      for (const fail of [...pending]) fail(new TransportClosedError());
    },
  };
}

function sessionOption(session: Buffer | undefined): { session?: Buffer } {
  return session === undefined ? {} : { session };
}

function ignore(): void {}
