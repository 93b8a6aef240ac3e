import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, eventually } from '../support/api-client.js';
import { TEST_BACKEND, TEST_SHARDS } from '../support/deployment.js';
import { startDestination, type Destination } from '../support/destination.js';
import { createProject, newDataDir, startFerry } from '../support/ferry-process.js';
import { infraCommand } from '../support/infra.js';
import { watchShards } from '../support/shard-watch.js';

/** The documented bound: the group's session timeout, one rebalance and fencing, with room for a busy machine. */
const TAKEOVER_BOUND_MS = 30_000;
const SESSION_TIMEOUT_MS = 6_000;

/** Keeps sending through the given processes until stopped; records every acknowledged request and each answer. */
function steadyLoad(apis: () => Api[], url: string) {
  const acknowledged: string[] = [];
  const statuses = new Map<number, number>();
  /** Answers other than 202, 502 and 503, with their bodies, for the failure message. */
  const unexpected: unknown[] = [];
  let stopped = false;
  const senders = Array.from({ length: 6 }, async (_, w) => {
    for (let i = 0; !stopped; i++) {
      const targets = apis();
      const api = targets[(w + i) % targets.length]!;
      try {
        const res = await api.send({ url, retry: '10' }, `load-${w}-${i}`);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 202) acknowledged.push((res.body.data as { id: string }).id);
        else if (res.status !== 502 && res.status !== 503 && unexpected.length < 20) unexpected.push({ status: res.status, body: res.body });
        else await new Promise((r) => setTimeout(r, 50));
      } catch {
        // A process that was killed refuses connections; the next round picks another.
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
  return {
    acknowledged,
    statuses,
    unexpected,
    async stop() {
      stopped = true;
      await Promise.all(senders);
    },
  };
}

describe.runIf(TEST_BACKEND === 'cassandra')('scale-out and failover over Cassandra and Kafka', () => {
  let dest: Destination;
  beforeAll(async () => {
    dest = await startDestination({ record: true });
  });
  afterAll(async () => {
    await dest?.close();
  });

  const env = () => ({
    FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
    FERRY_DELIVERY_CA_FILE: dest.certFile,
    FERRY_RETRY_BASE_MS: '100',
    FERRY_RETRY_CAP_MS: '2000',
    FERRY_DELIVERY_IDLE_POLL_MS: '200',
    FERRY_KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
  });

  async function expectAllDelivered(api: Api, ids: readonly string[], path: string): Promise<void> {
    const missing = (): string[] => {
      const delivered = new Set(dest.requestsTo(path).map((r) => r.headers['service-request-id']));
      return ids.filter((id) => !delivered.has(id));
    };
    try {
      await eventually(async () => (missing().length === 0 ? true : undefined), 120_000);
    } catch (err) {
      // Lost or only stuck: what storage says of the requests that never arrived tells the two apart.
      const stored = await Promise.all(
        missing()
          .slice(0, 20)
          .map(async (id) => {
            const res = await api.call<Record<string, unknown>>('GET', `/requests/${id}`);
            return { id, http: res.status, data: res.body.data };
          }),
      );
      throw new Error(`${missing().length} of ${ids.length} acknowledged requests never arrived; stored: ${JSON.stringify(stored)}`, { cause: err });
    }
    for (const id of ids) {
      await eventually(async () => {
        const res = await api.call<{ status: string }>('GET', `/requests/${id}`);
        return res.body.data.status === 'succeeded' ? true : undefined;
      }, 60_000);
    }
  }

  it('three processes share the shards; after kill -9 of one, the others take its shards and deliver everything', async () => {
    const dataDir = newDataDir();
    const procs = await Promise.all([0, 1, 2].map(() => startFerry({ dataDir, env: env() })));
    const watchers = procs.map(watchShards);
    const { apiKey } = await createProject(dataDir);
    try {
      // Every shard has exactly one owner once the group settled.
      await eventually(async () => {
        const all = watchers.flatMap((w) => w.owned());
        return all.length === TEST_SHARDS && new Set(all).size === TEST_SHARDS ? true : undefined;
      }, 90_000);
      expect(watchers.every((w) => w.owned().length > 0)).toBe(true);

      let alive = procs.map((p) => new Api(p.baseUrl, apiKey));
      const load = steadyLoad(() => alive, `${dest.url}/failover`);
      await eventually(async () => (load.acknowledged.length >= 300 ? true : undefined), 60_000);

      const victimShards = watchers[0]!.owned();
      alive = alive.slice(1);
      await procs[0]!.kill();
      const killedAt = Date.now();

      // The survivors own every shard again, the victim's included, within the bound.
      const takeover = await eventually(async () => {
        const all = [watchers[1]!, watchers[2]!].flatMap((w) => w.owned());
        if (new Set(all).size !== TEST_SHARDS || all.length !== TEST_SHARDS) return undefined;
        return Math.max(...[watchers[1]!, watchers[2]!].flatMap((w) => w.takenAt())) - killedAt;
      }, TAKEOVER_BOUND_MS + 10_000);
      expect(victimShards.length).toBeGreaterThan(0);
      expect(takeover).toBeLessThan(TAKEOVER_BOUND_MS);

      const before = load.acknowledged.length;
      await eventually(async () => (load.acknowledged.length >= before + 200 ? true : undefined), 60_000);
      await load.stop();

      await expectAllDelivered(alive[0]!, load.acknowledged, '/failover');
      const stuck = await alive[0]!.call<{ items: unknown[] }>('GET', '/requests?status=delivering');
      expect(stuck.body.data.items).toEqual([]);
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
    }
  }, 300_000);

  it('answers 503 while it cannot store, recovers by itself after Kafka and then Cassandra restart, and loses nothing acknowledged', async () => {
    const dataDir = newDataDir();
    const procs = await Promise.all([0, 1].map(() => startFerry({ dataDir, env: env() })));
    const { apiKey } = await createProject(dataDir);
    const apis = procs.map((p) => new Api(p.baseUrl, apiKey));
    try {
      const load = steadyLoad(() => apis, `${dest.url}/outage`);
      await eventually(async () => (load.acknowledged.length >= 100 ? true : undefined), 60_000);

      await infraCommand('stop', 'kafka');
      // Requests stored while Kafka is away are durable in Cassandra, so they are acknowledged all the same.
      const duringKafka = load.acknowledged.length;
      await eventually(async () => (load.acknowledged.length >= duringKafka + 50 ? true : undefined), 60_000);
      await infraCommand('start', 'kafka');
      await infraCommand('wait', 'kafka');

      await infraCommand('stop', 'cassandra');
      const rejected = load.statuses.get(503) ?? 0;
      await eventually(async () => ((load.statuses.get(503) ?? 0) > rejected ? true : undefined), 60_000);
      await infraCommand('start', 'cassandra');
      await infraCommand('wait', 'cassandra');

      // Recovered without a restart of the service.
      const recovered = load.acknowledged.length;
      await eventually(async () => (load.acknowledged.length >= recovered + 100 ? true : undefined), 120_000);
      await load.stop();
      expect(load.unexpected).toEqual([]);

      await expectAllDelivered(apis[0]!, load.acknowledged, '/outage');
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
      await infraCommand('start', 'kafka');
      await infraCommand('start', 'cassandra');
    }
  }, 600_000);
});
