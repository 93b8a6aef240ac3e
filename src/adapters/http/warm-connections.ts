import { isIPv6, type Socket } from 'node:net';
import type { buildConnector } from 'undici';

/**
 * A connection opened ahead of use is handed out only this long after it was opened: servers close connections
 * that carry no request sooner or later, and one closed while it was being handed over would fail an attempt.
 */
const WARM_TTL_MS = 3_000;

export interface WarmConnections {
  /** The connector undici calls: it hands out a connection opened ahead when one is ready, else connects. */
  readonly connect: buildConnector.connector;
  /** Opens connections to the origin of `url` until `count` are ready or being opened (beyond those undici has). */
  warm(url: string, count: number): void;
  /** Closes every connection still waiting to be used; later calls to `warm` open nothing. */
  close(): void;
}

interface Ready {
  readonly socket: Socket;
  readonly timer: NodeJS.Timeout;
  readonly drop: () => void;
}

interface OriginConnections {
  readonly ready: Ready[];
  opening: number;
}

/**
 * Connections opened before the attempts that will use them, for a burst of attempts known to come soon: opened
 * through `connect` (so with every address check of an ordinary connection) and kept, unread, until undici asks
 * for a connection to that origin. undici's own pools offer no way to connect ahead, and a burst due at one
 * instant would otherwise start with hundreds of TLS handshakes at once, competing with the attempts themselves.
 */
export function warmConnections(connect: buildConnector.connector): WarmConnections {
  const origins = new Map<string, OriginConnections>();
  let closed = false;

  const originOf = (key: string): OriginConnections => {
    let o = origins.get(key);
    if (o === undefined) {
      o = { ready: [], opening: 0 };
      origins.set(key, o);
    }
    return o;
  };
  const forget = (key: string, o: OriginConnections): void => {
    if (o.ready.length === 0 && o.opening === 0) origins.delete(key);
  };

  const keep = (key: string, socket: Socket): void => {
    const o = originOf(key);
    const drop = (): void => {
      const at = o.ready.indexOf(entry);
      if (at < 0) return;
      o.ready.splice(at, 1);
      clearTimeout(entry.timer);
      socket.off('end', drop).off('close', drop);
      socket.destroy();
      forget(key, o);
    };
    const entry: Ready = { socket, timer: setTimeout(drop, WARM_TTL_MS), drop };
    // Flowing with no reader: a peer that closes the connection meanwhile is noticed (`end`) and the connection
    // dropped; nothing else can arrive, as no request was sent on it.
    socket.on('error', ignore).once('end', drop).once('close', drop);
    socket.resume();
    o.ready.push(entry);
  };

  const take = (key: string): Socket | undefined => {
    const o = origins.get(key);
    if (o === undefined) return undefined;
    for (let entry = o.ready.shift(); entry !== undefined; entry = o.ready.shift()) {
      clearTimeout(entry.timer);
      entry.socket.off('end', entry.drop).off('close', entry.drop);
      if (!entry.socket.destroyed && entry.socket.readyState === 'open') {
        forget(key, o);
        // undici reads through `readable` events: the connection goes back to paused mode for it.
        entry.socket.pause();
        return entry.socket;
      }
      entry.socket.destroy();
    }
    forget(key, o);
    return undefined;
  };

  return {
    connect(options, callback) {
      const socket = take(keyOf(options));
      if (socket === undefined) {
        connect(options, callback);
        return;
      }
      // undici expects the callback on a later tick, as from a real connection attempt. Until it has the
      // connection, an error on it is still ignored here, and one that broke meanwhile is replaced by a new one.
      process.nextTick(() => {
        socket.off('error', ignore);
        if (socket.destroyed || socket.readyState !== 'open') connect(options, callback);
        else callback(null, socket);
      });
    },
    warm(url, count) {
      if (closed) return;
      const options = connectOptionsOf(url);
      if (options === null) return;
      const key = keyOf(options);
      const o = originOf(key);
      for (let more = count - o.ready.length - o.opening; more > 0; more--) {
        o.opening += 1;
        connect(options, (err, socket) => {
          o.opening -= 1;
          if (err === null && socket !== null && !closed) keep(key, socket);
          else {
            // A connection that fails ahead of use is no outcome of any attempt: the attempts connect as they
            // would have, and meet the failure themselves.
            socket?.on('error', ignore).destroy();
            forget(key, o);
          }
        });
      }
      forget(key, o);
    },
    close() {
      closed = true;
      for (const o of origins.values()) for (const entry of [...o.ready]) entry.drop();
    },
  };
}

/** The connection options undici passes for `url`'s origin (see its client's `connect`). */
function connectOptionsOf(url: string): buildConnector.Options | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  let hostname = parsed.hostname;
  if (hostname.startsWith('[') && hostname.endsWith(']') && isIPv6(hostname.slice(1, -1))) hostname = hostname.slice(1, -1);
  return { hostname, host: parsed.host, protocol: parsed.protocol, port: parsed.port };
}

function keyOf(options: buildConnector.Options): string {
  return `${options.protocol}//${options.hostname}:${options.port}/${options.servername ?? ''}`;
}

function ignore(): void {}
