import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP relay on loopback in front of one node (`host:port`) that can stop forwarding: frozen, it keeps every socket
 * open and keeps reading, but forwards nothing either way and opens no connection to the node, as a network that
 * went silent; resumed, it forwards what it held, in order, then everything again. So a process reaching the node
 * only through it stays connected, sees no error but timeouts, and whatever it sent meanwhile arrives late.
 */
export interface Relay {
  /** `127.0.0.1:port`, where the relay listens. */
  readonly address: string;
  /** The node's `host:port`. */
  readonly target: string;
  freeze(): void;
  resume(): void;
  /** Bytes the clients sent while frozen, forwarded to the node on resume. */
  readonly lateBytes: number;
  close(): Promise<void>;
}

/** More held than this on one connection (a client that never stops sending) closes it. */
const MAX_HELD_BYTES = 64 * 1024 * 1024;

interface Direction {
  readonly to: () => Socket | null;
  held: Buffer[];
  heldBytes: number;
}

interface Pair {
  readonly client: Socket;
  upstream: Socket | null;
  /** The client closed while the relay was frozen: its close reaches the node after what it held. */
  clientGone: boolean;
  readonly up: Direction;
  readonly down: Direction;
}

export async function startRelay(target: string): Promise<Relay> {
  const colon = target.lastIndexOf(':');
  const host = target.slice(0, colon);
  const port = Number(target.slice(colon + 1));
  let frozen = false;
  let lateBytes = 0;
  const pairs = new Set<Pair>();

  const flush = (d: Direction): void => {
    const to = d.to();
    if (frozen || to === null) return;
    for (const chunk of d.held) to.write(chunk);
    d.held = [];
    d.heldBytes = 0;
  };

  /** After a resume or a connect: what was held goes on, and a client that left meanwhile is let go. */
  const settle = (pair: Pair): void => {
    flush(pair.up);
    flush(pair.down);
    if (pair.clientGone && pair.up.held.length === 0 && pair.upstream?.readyState === 'open') {
      pair.upstream.end();
      pairs.delete(pair);
    }
  };

  const openUpstream = (pair: Pair): void => {
    const upstream = connect({ host, port });
    pair.upstream = upstream;
    upstream.on('data', (chunk: Buffer) => {
      if (frozen || pair.down.held.length > 0) {
        pair.down.held.push(chunk);
        pair.down.heldBytes += chunk.length;
      } else if (!pair.clientGone) pair.client.write(chunk);
    });
    upstream.on('error', () => undefined);
    upstream.on('close', () => {
      pair.client.destroy();
      pairs.delete(pair);
    });
    upstream.on('connect', () => settle(pair));
  };

  const server = createServer((client) => {
    const pair: Pair = {
      client,
      upstream: null,
      clientGone: false,
      up: { to: () => (pair.upstream?.readyState === 'open' ? pair.upstream : null), held: [], heldBytes: 0 },
      down: { to: () => (pair.clientGone ? null : client), held: [], heldBytes: 0 },
    };
    pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      const to = pair.up.to();
      if (frozen || to === null || pair.up.held.length > 0) {
        pair.up.held.push(chunk);
        pair.up.heldBytes += chunk.length;
        if (frozen) lateBytes += chunk.length;
        if (pair.up.heldBytes > MAX_HELD_BYTES) client.destroy();
        return;
      }
      to.write(chunk);
    });
    client.on('error', () => undefined);
    client.on('close', () => {
      pair.clientGone = true;
      pair.down.held = [];
      // While frozen, the node learns of the close only once the network carries it, after what the client sent.
      if (!frozen) settle(pair);
    });
    if (!frozen) openUpstream(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    target,
    freeze: () => {
      frozen = true;
    },
    resume: () => {
      frozen = false;
      for (const pair of [...pairs]) {
        if (pair.upstream === null) openUpstream(pair);
        else settle(pair);
      }
    },
    get lateBytes() {
      return lateBytes;
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
