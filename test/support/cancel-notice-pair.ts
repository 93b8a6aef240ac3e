import { setTimeout as sleep } from 'node:timers/promises';
import { shardOf } from '../../src/domain/shards.js';
import { eventually, type Api } from './api-client.js';
import { TEST_SHARDS } from './deployment.js';
import type { Arrival } from './stale-owner-pair.js';

/** A request accepted for later delivery, with the shard its ID falls in. */
export interface DueRequest {
  readonly id: string;
  readonly shard: number;
}

/** What the API shows of a request: its status and its attempts as [number, status, response code]. */
export interface Outcome {
  readonly status: string;
  readonly attempts: ReadonlyArray<readonly [number, string, number | null]>;
}

interface Detail {
  readonly status: string;
  readonly attempts: ReadonlyArray<{ readonly attempt_number: number; readonly status: string; readonly response_status_code: number | null }>;
}

/**
 * Sends requests to `url` through `api`, all due at `dueAt`, until `enough` holds for those accepted so far;
 * every one of them is returned, with its shard. `then` runs on each as soon as it is accepted, before the next send.
 */
export async function acceptDueAt(
  api: Api,
  url: string,
  dueAt: number,
  enough: (accepted: readonly DueRequest[]) => boolean,
  then: (request: DueRequest) => Promise<void> = async () => undefined,
): Promise<DueRequest[]> {
  const accepted: DueRequest[] = [];
  const deliverAt = new Date(dueAt).toISOString();
  while (!enough(accepted)) {
    if (accepted.length >= 50 * TEST_SHARDS) throw new Error(`${accepted.length} requests accepted and still not the ones wanted`);
    const res = await api.send({ url, deliver_at: deliverAt, timeout: '30s' });
    if (res.status !== 202) throw new Error(`send answered ${res.status}: ${JSON.stringify(res.body)}`);
    const id = (res.body.data as { id: string }).id;
    const request = { id, shard: shardOf(id, TEST_SHARDS) };
    accepted.push(request);
    await then(request);
  }
  return accepted;
}

/** The request's status and attempts as `api` reads them. */
export async function outcomeOf(api: Api, id: string): Promise<Outcome> {
  const res = await api.call<Detail>('GET', `/requests/${id}`);
  if (res.status !== 200) throw new Error(`GET /requests/${id} answered ${res.status}: ${JSON.stringify(res.body)}`);
  const d = res.body.data;
  return { status: d.status, attempts: d.attempts.map((a) => [a.attempt_number, a.status, a.response_status_code] as const) };
}

/**
 * Waits until every one of `awaited` has reached the destination, then until nothing more arrives for `quietMs`:
 * whatever was still to be sent by then has been.
 */
export async function settledArrivals(arrivals: readonly Arrival[], awaited: readonly string[], quietMs: number, deadlineMs: number): Promise<void> {
  await eventually(async () => (awaited.every((id) => arrivals.some((a) => a.id === id)) ? true : undefined), deadlineMs);
  for (let round = 0; ; round++) {
    const seen = arrivals.length;
    await sleep(quietMs);
    if (arrivals.length === seen) return;
    if (round === 10) throw new Error(`attempts kept arriving well after the last awaited one (${arrivals.length} so far)`);
  }
}
