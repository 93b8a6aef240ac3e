import { shardOf } from '../../src/domain/shards.js';
import { Api, eventually } from './api-client.js';
import { TEST_SHARDS } from './deployment.js';
import { sharedSelfSignedCertificate } from './certs.js';
import type { Destination } from './destination.js';
import { createProject, newDataDir, startFerry, type FerryProcess } from './ferry-process.js';
import { sumOf } from './metrics.js';
import { watchShards, type ShardWatch } from './shard-watch.js';
import { startProcessGate, type ProcessGate } from './stale-owner-gate.js';

/** Which of the two processes sent an attempt, as the gate in front of the destination saw it. */
export type Sender = 'A' | 'B' | 'unknown';

/** One attempt as it reached the destination. */
export interface Arrival {
  readonly id: string;
  readonly from: Sender;
  /** The Service-Attempt header. */
  readonly attempt: string;
  readonly at: number;
}

/** Two delivering processes, A and B, on one fresh deployment, every shard owned and both owning some. */
export interface OwnerPair {
  readonly a: FerryProcess;
  readonly b: FerryProcess;
  readonly watchA: ShardWatch;
  readonly watchB: ShardWatch;
  readonly apiA: Api;
  readonly apiB: Api;
  readonly dataDir: string;
  readonly projectId: string;
  /** The destination's address through the gate that tells A from B. */
  readonly url: string;
  readonly gate: ProcessGate;
  /** Every line A wrote on stderr, in order. */
  readonly logA: readonly string[];
  /** A's shards once the group settled. */
  readonly aShards: readonly number[];
  /** How often A had given shards up by then (joining the group takes a rebalance or two). */
  readonly aDropsAtStart: number;
  /** Leaves no process stopped or running. */
  close(): Promise<void>;
}

/** Starts A and B with `env` (A also with `envA`) and waits until they share the shards between them. */
export async function startOwnerPair(dest: Destination, env: Record<string, string>, envA: Record<string, string> = {}): Promise<OwnerPair> {
  const dataDir = newDataDir();
  const [a, b] = await Promise.all([startFerry({ dataDir, env: { ...env, ...envA } }), startFerry({ dataDir, env })]);
  const logA: string[] = [];
  let partial = '';
  a.followOutput((text) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    logA.push(...lines);
  });
  const watchA = watchShards(a);
  const watchB = watchShards(b);
  const gate = await startProcessGate(dest.port, sharedSelfSignedCertificate(), [a.child.pid!, b.child.pid!]);
  const close = async (): Promise<void> => {
    // A stopped process would not act on SIGTERM until it runs again.
    a.child.kill('SIGCONT');
    await Promise.all([a.stop(), b.stop()]);
    await gate.close();
  };
  try {
    const { apiKey, projectId } = await createProject(dataDir);
    await eventually(async () => {
      const all = [...watchA.owned(), ...watchB.owned()];
      const settled = all.length === TEST_SHARDS && new Set(all).size === TEST_SHARDS;
      return settled && watchA.owned().length > 0 && watchB.owned().length > 0 ? true : undefined;
    }, 90_000);
    const [aShards, aDropsAtStart] = [[...watchA.owned()], watchA.drops()];
    const [apiA, apiB] = [new Api(a.baseUrl, apiKey), new Api(b.baseUrl, apiKey)];
    return { a, b, watchA, watchB, apiA, apiB, dataDir, projectId, url: gate.url, gate, logA, aShards, aDropsAtStart, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Records every attempt reaching `path` with its sender. Attempts from A are left unanswered (held, the
 * connection open) while `holdA()` says so, to be answered later with `answerHeld`; all others get 200 at once.
 */
export function senderAwareRoute(dest: Destination, path: string, pair: OwnerPair, holdA: () => boolean) {
  const arrivals: Arrival[] = [];
  const held: Array<{ readonly id: string; readonly answer: (status: number) => void }> = [];
  dest.on(path, ({ request, res }) => {
    const pid = pair.gate.ownerOf(res.socket?.remotePort);
    const from: Sender = pid === pair.a.child.pid ? 'A' : pid === pair.b.child.pid ? 'B' : 'unknown';
    const id = request.headers['service-request-id'] ?? '';
    arrivals.push({ id, from, attempt: request.headers['service-attempt'] ?? '', at: Date.now() });
    if (from === 'A' && holdA()) held.push({ id, answer: (status) => void res.writeHead(status).end() });
    else res.writeHead(200).end();
  });
  return {
    arrivals,
    held,
    /** Answers every held attempt with `status`. */
    answerHeld(status: number): void {
      for (const h of held.splice(0)) h.answer(status);
    },
  };
}

/** Every attempt outcome A has dealt with: recorded, or dropped because another process had taken the request. */
export async function outcomesSettledBy(p: FerryProcess): Promise<number> {
  const res = await fetch(`${p.baseUrl}/metrics`);
  return sumOf(await res.text(), 'ferry_deliveries_total');
}

/** Whether `p` answers /healthz. */
export async function healthy(p: FerryProcess): Promise<boolean> {
  try {
    return (await fetch(`${p.baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) })).status === 200;
  } catch {
    return false;
  }
}

/** Accepts requests through `api` until `count` of them fall in `shards`; the others are returned beside them. */
export async function acceptInShards(api: Api, url: string, shards: readonly number[], count: number) {
  const targets: string[] = [];
  const others: string[] = [];
  for (let sent = 0; targets.length < count; sent++) {
    if (sent > count * 20) throw new Error(`only ${targets.length} of ${sent} accepted requests fell in shards ${shards.join(',')}`);
    // A timeout far above the test's pauses: every attempt ends by its answer, not by its deadline.
    const res = await api.send({ url, retry: '3', timeout: '120s' });
    if (res.status !== 202) throw new Error(`send answered ${res.status}: ${JSON.stringify(res.body)}`);
    const id = (res.body.data as { id: string }).id;
    (shards.includes(shardOf(id, TEST_SHARDS)) ? targets : others).push(id);
  }
  return { targets, others };
}
