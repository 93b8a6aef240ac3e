import { readFileSync } from 'node:fs';
import { Client, auth, policies, types, type ArrayOrObject } from 'cassandra-driver';
import { systemClock, type Clock } from '../../domain/clock.js';
import { isRefusedWhileShuttingDown, toPortError } from './errors.js';
import { BatchLogRetryPolicy } from './retry-policy.js';

/** How to reach a cluster; every field comes from the service configuration. */
export interface CassandraConnection {
  /** `host` or `host:port` of at least one node. */
  readonly contactPoints: readonly string[];
  /** Requests go to nodes of this datacenter; consistency levels are `LOCAL_*` within it. */
  readonly localDataCenter: string;
  readonly keyspace: string;
  /** CQL replication map used when `ferry migrate` creates the keyspace. */
  readonly replication: string;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** Connect with TLS; `caFile` adds a CA to trust beside the system store. */
  readonly tls?: { readonly caFile?: string | undefined } | null | undefined;
  /**
   * Where to connect instead, by the `host:port` a contact point or the cluster names a node by (nodes behind NAT, a
   * proxy): contact points are mapped before the driver sees them, the nodes it discovers by its address translator.
   */
  readonly addressMap?: ReadonlyMap<string, string> | undefined;
}

/**
 * Consistency levels, chosen once. Reads and writes use LOCAL_QUORUM, so a read sees every acknowledged write
 * even when one replica of three is down; conditional writes use LOCAL_SERIAL for the Paxos phase.
 */
export const CONSISTENCY = {
  read: types.consistencies.localQuorum,
  write: types.consistencies.localQuorum,
  serial: types.consistencies.localSerial,
} as const;

/** Far above a healthy read's latency (a few ms; under 100 ms on a busy test machine), far below readTimeout. */
const SPECULATIVE_DELAY_MS = 500;
/**
 * A statement a node refused while shutting down is sent again this many times at most, this far apart: the node
 * stops taking connections within moments, and the driver then plans around it.
 */
const REFUSED_TRIES = 5;
const REFUSED_PAUSE_MS = 200;

export interface Statement {
  readonly query: string;
  readonly params?: ArrayOrObject;
}

interface ExecuteOptions {
  /** Safe to send again after a timeout (the driver then may retry it on another node). */
  readonly idempotent?: boolean;
  readonly fetchSize?: number;
  readonly consistency?: number;
}

/**
 * The only holder of a driver client. Every statement is prepared (the driver caches it), runs at the documented
 * consistency, and has its errors converted by `toPortError`, so stores above it never see a driver error.
 */
export class CassandraSession {
  private constructor(
    readonly client: Client,
    readonly keyspace: string,
    private readonly clock: Pick<Clock, 'now' | 'sleep'>,
  ) {}

  /** Connects without a keyspace: `ferry migrate` may still have to create it. */
  static async connect(c: CassandraConnection, clock: Pick<Clock, 'now' | 'sleep'> = systemClock): Promise<CassandraSession> {
    const port = sharedPort(c.contactPoints);
    const map = c.addressMap ?? new Map<string, string>();
    const client = new Client({
      contactPoints: c.contactPoints.map((point) => map.get(point.trim()) ?? point),
      // The driver reaches the nodes it discovers (system.peers) on this port, not on the contact points' own.
      ...(port !== undefined ? { protocolOptions: { port } } : {}),
      localDataCenter: c.localDataCenter,
      ...(c.username !== undefined ? { authProvider: new auth.PlainTextAuthProvider(c.username, c.password ?? '') } : {}),
      ...(c.tls ? { sslOptions: c.tls.caFile ? { ca: [readFileSync(c.tls.caFile)] } : {} } : {}),
      queryOptions: { consistency: CONSISTENCY.write, serialConsistency: CONSISTENCY.serial, prepare: true },
      // readTimeout stays above Cassandra's own timeouts (10 s for a range read), so a slow cluster reports its own
      // error first. A connection on which 8 statements timed out is dropped (the driver's default waits for 64):
      // a node that froze keeps its sockets open and answers nothing, and only a dropped connection lets the driver
      // mark it down and send everything to the other replicas.
      socketOptions: { connectTimeout: 5_000, readTimeout: 12_000, defunctReadTimeoutThreshold: 8 },
      pooling: { heartBeatInterval: 10_000 },
      policies: {
        // After an outage the service must recover by itself within seconds, not the driver's default ten minutes;
        // a node that restarted is used again at the first successful attempt.
        reconnection: new policies.reconnection.ExponentialReconnectionPolicy(500, 5_000, true),
        // A statement marked idempotent (every read, plain writes) that has no answer after SPECULATIVE_DELAY_MS is
        // sent to the next replica too, and the first answer wins: a frozen or overloaded node costs a read the
        // delay, not the read timeout. Conditional writes are never sent twice; their uncertain outcomes are
        // settled by a serial read where they are made (idempotency.ts, usage.ts, schedules/changes.ts).
        speculativeExecution: new policies.speculativeExecution.ConstantSpeculativeExecutionPolicy(SPECULATIVE_DELAY_MS, 2),
        // A logged batch (a batch create, an ending with its callback) whose batch log write timed out is sent again
        // for up to 40 s: until the coordinators' failure detectors convict a node that died, each of them still
        // picks it for the batch log (retry-policy.ts). The driver's default gives up after one more timeout.
        retry: new BatchLogRetryPolicy(() => clock.now()),
        ...(map.size > 0 ? { addressResolution: new MappedAddresses(map) } : {}),
      },
    });
    try {
      await client.connect();
    } catch (err) {
      await client.shutdown().catch(() => undefined);
      throw toPortError(err, 'connecting');
    }
    return new CassandraSession(client, c.keyspace, clock);
  }

  /** A table name qualified with the deployment's keyspace (CQL cannot bind identifiers). */
  table(name: string): string {
    return `${this.keyspace}.${name}`;
  }

  /** Runs one statement; `during` names the operation in errors. */
  async execute(query: string, params: ArrayOrObject, during: string, options: ExecuteOptions = {}): Promise<types.ResultSet> {
    try {
      return await this.unrefused(() =>
        this.client.execute(query, params, {
          prepare: true,
          isIdempotent: options.idempotent ?? false,
          consistency: options.consistency ?? CONSISTENCY.write,
          ...(options.fetchSize !== undefined ? { fetchSize: options.fetchSize } : {}),
        }),
      );
    } catch (err) {
      throw toPortError(err, during);
    }
  }

  /** Runs a read at the read consistency; reads are always safe to retry. */
  read(query: string, params: ArrayOrObject, during: string, fetchSize?: number): Promise<types.ResultSet> {
    return this.execute(query, params, during, {
      idempotent: true,
      consistency: CONSISTENCY.read,
      ...(fetchSize !== undefined ? { fetchSize } : {}),
    });
  }

  /**
   * Writes plain (unconditional) statements in one message: a lone statement as itself, several as an unlogged
   * batch. For rows that need no atomicity together, where the batch only saves round trips.
   */
  async writeTogether(statements: readonly Statement[], during: string): Promise<void> {
    const [first] = statements;
    if (first === undefined) return;
    // Idempotent either way, as a lone statement always was: plain writes, each at a timestamp fixed when it is first
    // sent. A batch not marked so was failed, not sent elsewhere, when the connection under it closed.
    if (statements.length === 1) await this.execute(first.query, first.params ?? [], during, { idempotent: true });
    else await this.batch(statements, during, { logged: false, idempotent: true });
  }

  /**
   * Runs statements as one batch. A logged batch is applied entirely or not at all, even across partitions; an
   * unlogged one only saves round trips. A batch with a condition must stay within one partition.
   */
  async batch(statements: readonly Statement[], during: string, options: { logged: boolean; idempotent?: boolean }): Promise<types.ResultSet> {
    try {
      return await this.unrefused(() =>
        this.client.batch(
          statements.map((s) => ({ query: s.query, params: s.params ?? [] })),
          { prepare: true, logged: options.logged, consistency: CONSISTENCY.write, isIdempotent: options.idempotent ?? false },
        ),
      );
    } catch (err) {
      throw toPortError(err, during);
    }
  }

  /**
   * Runs `send` again when a node refused it while shutting down (nothing of it ran, see
   * `isRefusedWhileShuttingDown`): the driver retries only idempotent statements on such an answer, and not always
   * on another node, so a rolling restart would fail conditional writes and some others. Bounded by `REFUSED_TRIES`.
   */
  private async unrefused<T>(send: () => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await send();
      } catch (err) {
        if (tries >= REFUSED_TRIES || !isRefusedWhileShuttingDown(err)) throw err;
        await this.clock.sleep(REFUSED_PAUSE_MS);
      }
    }
  }

  async close(): Promise<void> {
    await this.client.shutdown();
  }
}

/** The driver's translator class (its typings declare only the interface; the driver checks `instanceof` it). */
const AddressTranslator = (policies.addressResolution as unknown as { AddressTranslator: new () => policies.addressResolution.AddressTranslator })
  .AddressTranslator;

/** Translates each node's `host:port` as the cluster names it through the address map; others stay as they are. */
class MappedAddresses extends AddressTranslator {
  constructor(private readonly map: ReadonlyMap<string, string>) {
    super();
  }

  override translate(address: string, port: number, callback: (endpoint: string) => void): void {
    // The driver's own form is `address:port`, an IPv6 address unbracketed; the map may bracket it.
    const endpoint = `${address}:${port}`;
    callback(this.map.get(endpoint) ?? this.map.get(`[${address}]:${port}`) ?? endpoint);
  }
}

/** Whether a conditional statement (`IF ...`) took effect. */
export function applied(result: types.ResultSet): boolean {
  return result.wasApplied();
}

/** Milliseconds since the epoch from a `bigint` column, or null. */
export function millis(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? value : (value as types.Long).toNumber();
}

/** A write timestamp as the driver binds a `bigint` (`USING TIMESTAMP ?`): beyond 2^53, so never a plain number. */
export function timestampValue(t: bigint): types.Long {
  return types.Long.fromString(t.toString());
}

/** The driver binds only Buffers to blob columns; this one shares the caller's memory (a view, not a copy). */
export function blob(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The driver returns Buffers over its receive buffers; callers get plain Uint8Arrays of their own, as from any other backend. */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/**
 * The port every contact point names, when they all name the same one. The driver connects to the nodes it learns
 * of from the cluster on `protocolOptions.port` (9042 unless set): a cluster listening elsewhere would otherwise
 * show its other nodes at a port nothing answers, and lose them from every query plan.
 */
export function sharedPort(contactPoints: readonly string[]): number | undefined {
  const ports = new Set(contactPoints.map((point) => /^(?:\[[^\]]+\]|[^:]+):(\d+)$/.exec(point.trim())?.[1]));
  if (ports.size !== 1) return undefined;
  const [only] = ports;
  return only === undefined ? undefined : Number(only);
}
