import { readFile, readdir, readlink } from 'node:fs/promises';
import { connect, createServer, type TLSSocket } from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import type { TestCertificate } from './certs.js';

/**
 * A TLS front for a loopback test destination that knows which local process opened each connection through it,
 * and can keep the connections of one process unread: their TLS handshake completes (the sender goes on to send
 * its request) but nothing reaches the destination until they are let through. Two Ferry processes delivering to
 * one URL look alike to the destination; the kernel's socket table tells them apart (Linux `/proc`).
 */
export interface ProcessGate {
  /** https://127.0.0.1:PORT of the gate: the destination's address as the processes use it. */
  readonly url: string;
  /** The process behind a connection the destination received, by that connection's remote port. */
  ownerOf(destinationSidePort: number | undefined): number | undefined;
  /** Connections from `pid` that complete their handshake from now on are kept unread until `letThrough`. */
  holdFrom(pid: number): void;
  /** Lets every kept connection through to the destination and keeps no more. */
  letThrough(): void;
  /** Connections kept so far, including those let through since. */
  readonly held: number;
  /** Connections whose process was none of those given. */
  readonly unattributed: number;
  /** The longest a connection waited to be told apart, in ms. */
  readonly slowestLookupMs: number;
  close(): Promise<void>;
}

/**
 * Starts a gate in front of the destination on 127.0.0.1:`upstreamPort` (serving `certificate`, which the gate
 * serves too), for connections from `pids`.
 */
export async function startProcessGate(upstreamPort: number, certificate: TestCertificate, pids: readonly number[]): Promise<ProcessGate> {
  /** Local port of each upstream connection (the destination's remote port) → the process that opened it. */
  const owners = new Map<number, number>();
  const sockets = new Set<Socket>();
  let holding: number | null = null;
  const kept: Array<{ client: TLSSocket; owner: number }> = [];
  let held = 0;
  let unattributed = 0;

  const track = (s: Socket): void => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };

  const pass = (client: TLSSocket, owner: number | undefined): void => {
    const upstream = connect({ host: '127.0.0.1', port: upstreamPort, ca: certificate.cert }, () => {
      // Known before the first byte goes through, so before the destination can see a request on it.
      if (owner !== undefined && upstream.localPort !== undefined) owners.set(upstream.localPort, owner);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    track(upstream);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) s.once('close', end).on('error', end);
  };

  const server = createServer({ key: readFileSync(certificate.keyFile), cert: certificate.cert }, (client) => {
    // Nothing is read from `client` until it is piped: what it sends waits in its buffers.
    track(client);
    client.on('error', () => client.destroy());
    void processOf.lookup(client.remotePort).then((owner) => {
      if (owner === undefined) unattributed += 1;
      if (client.destroyed) return;
      if (owner !== undefined && owner === holding) {
        held += 1;
        kept.push({ client, owner });
      } else {
        pass(client, owner);
      }
    });
  });
  server.on('connection', track);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // Connections arrive only once the server listens, so only with the port known.
  const processOf = new SocketOwners(port, pids);

  return {
    url: `https://127.0.0.1:${port}`,
    ownerOf: (destinationSidePort) => (destinationSidePort === undefined ? undefined : owners.get(destinationSidePort)),
    holdFrom(pid) {
      holding = pid;
    },
    letThrough() {
      holding = null;
      for (const { client, owner } of kept.splice(0)) if (!client.destroyed) pass(client, owner);
    },
    get held() {
      return held;
    },
    get unattributed() {
      return unattributed;
    },
    get slowestLookupMs() {
      return processOf.slowestMs;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Which of `pids` holds the client end of each loopback TCP connection to the gate: the socket's inode from
 * `/proc/net/tcp`, then the process whose file descriptors include it. Lookups that arrive while one is under way
 * share the next pass, and a pass reads each process's descriptors once, side by side: a burst of new connections
 * (every attempt after an idle spell opens one) once cost a pass per connection, each reading hundreds of
 * descriptors one after another, and held attempts for seconds on a busy machine.
 */
class SocketOwners {
  private readonly waiting: Array<{ clientPort: number; resolve: (pid: number | undefined) => void }> = [];
  private running = false;
  /** Socket inode → process, from the last pass. */
  private byInode = new Map<string, number>();
  /** The longest a lookup waited, in ms: printed by tests whose attempts seem slow. */
  slowestMs = 0;

  constructor(
    private readonly serverPort: number,
    private readonly pids: readonly number[],
  ) {}

  lookup(clientPort: number | undefined): Promise<number | undefined> {
    if (clientPort === undefined) return Promise.resolve(undefined);
    const asked = Date.now();
    return new Promise((resolve) => {
      const answer = (pid: number | undefined): void => {
        this.slowestMs = Math.max(this.slowestMs, Date.now() - asked);
        resolve(pid);
      };
      this.waiting.push({ clientPort, resolve: answer });
      if (!this.running) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0);
        const inodes = await clientSocketInodes(this.serverPort).catch(() => new Map<number, string>());
        if (batch.some((b) => !this.byInode.has(inodes.get(b.clientPort) ?? ''))) this.byInode = await socketsOf(this.pids);
        for (const b of batch) {
          const inode = inodes.get(b.clientPort);
          b.resolve(inode === undefined ? undefined : this.byInode.get(inode));
        }
      }
    } finally {
      this.running = false;
    }
  }
}

/** Socket inode → process, for every socket the processes hold. */
async function socketsOf(pids: readonly number[]): Promise<Map<string, number>> {
  const byInode = new Map<string, number>();
  await Promise.all(
    pids.map(async (pid) => {
      const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
      const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
      for (const link of links) if (link.startsWith('socket:[')) byInode.set(link.slice(8, -1), pid);
    }),
  );
  return byInode;
}

/** Local port → inode of the IPv4 sockets whose remote port is `serverPort`. */
async function clientSocketInodes(serverPort: number): Promise<Map<number, string>> {
  const table = await readFile('/proc/net/tcp', 'utf8');
  const inodes = new Map<number, string>();
  for (const line of table.split('\n').slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    const localPort = parseInt(fields[1]!.split(':')[1]!, 16);
    const remotePort = parseInt(fields[2]!.split(':')[1]!, 16);
    if (remotePort === serverPort) inodes.set(localPort, fields[9]!);
  }
  return inodes;
}
