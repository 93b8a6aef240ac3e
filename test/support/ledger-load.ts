import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Api } from './api-client.js';

/** One API call of the load: when it was sent, how long it took, and its status (0: no answer, the connection failed). */
export interface Call {
  readonly at: number;
  readonly ms: number;
  readonly status: number;
  readonly route: 'send' | 'batch';
  /** The base URL of the process called. */
  readonly via: string;
}

/** A request the API acknowledged with 202: when, and through which process (its base URL). */
export interface Acknowledged {
  readonly at: number;
  readonly via: string;
}

export interface Load {
  /** Every request answered 202, by ID. */
  readonly acknowledged: ReadonlyMap<string, Acknowledged>;
  readonly calls: readonly Call[];
  /** The error of the first failed calls (code and message), for the failure report. */
  readonly errors: readonly string[];
  /** Resolves once `count` more requests than now have been acknowledged; rejects after `deadlineMs`. */
  acknowledgedMore(count: number, deadlineMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const BATCH_SIZE = 5;
/**
 * Every request gets the most attempts the API allows. The failure tests retry fast (backoff capped at 2 s), so
 * twelve attempts spanned about 15 s: a test process that cannot answer its own destination for that long (the
 * destination, the gate in front of it and the load share its event loop, on a machine slower than this one) ends
 * requests failed, as configured, with nothing wrong in Ferry. Twenty span about 30 s.
 */
const MAX_ATTEMPTS = 20;

/**
 * Streams requests into the processes `targets()` names (the list may change: a killed process is left out), half
 * the calls `POST /send`, half `POST /requests/batch` of five, from a few senders that each wait for their answer
 * (the load follows what the service can take). A failed call is recorded, never sent again: the ledger counts it.
 * Every request asks for retries (a delivery that met a fault is attempted again) and gets the destination's 200.
 */
export function startLoad(targets: () => readonly Api[], url: string, senders = 4): Load {
  const acknowledged = new Map<string, Acknowledged>();
  const calls: Call[] = [];
  const errors: string[] = [];
  let stopped = false;

  const one = async (api: Api, batch: boolean): Promise<number> => {
    const key = `ledger-${randomUUID()}`;
    const at = Date.now();
    let status = 0;
    let ids: string[] = [];
    try {
      if (batch) {
        const requests = Array.from({ length: BATCH_SIZE }, () => ({ url, retry: { max_attempts: MAX_ATTEMPTS } }));
        const res = await api.call<{ requests: Array<{ id: string }> }>('POST', '/requests/batch', { json: { requests }, headers: { 'idempotency-key': key } });
        status = res.status;
        if (status === 202) ids = res.body.data.requests.map((r) => r.id);
        else if (errors.length < 20) errors.push(`${status} ${res.body?.error?.code}: ${res.body?.error?.message}`);
      } else {
        const res = await api.send({ url, retry: String(MAX_ATTEMPTS - 1) }, 'ledger', { 'idempotency-key': key });
        status = res.status;
        if (status === 202) ids = [(res.body.data as { id: string }).id];
        else if (errors.length < 20) errors.push(`${status} ${res.body?.error?.code}: ${res.body?.error?.message}`);
      }
    } catch {
      // No answer (the process is gone): status 0.
    }
    const done = Date.now();
    calls.push({ at, ms: done - at, status, route: batch ? 'batch' : 'send', via: api.baseUrl });
    for (const id of ids) acknowledged.set(id, { at: done, via: api.baseUrl });
    return status;
  };

  const running = Array.from({ length: senders }, async (_, w) => {
    for (let i = 0; !stopped; i++) {
      const apis = targets();
      const status = await one(apis[(w + i) % apis.length]!, (w + i) % 2 === 1);
      // A short pause keeps two cores shared with the cluster from saturating; longer after a failure.
      await sleep(status === 202 ? 20 : 100);
    }
  });

  return {
    acknowledged,
    calls,
    errors,
    async acknowledgedMore(count, deadlineMs = 90_000) {
      const want = acknowledged.size + count;
      const until = Date.now() + deadlineMs;
      while (acknowledged.size < want) {
        if (Date.now() > until) throw new Error(`${acknowledged.size} of ${want} requests acknowledged; answers ${JSON.stringify(statusCounts(calls))}`);
        await sleep(50);
      }
    },
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

/** How many calls got each status (0: no answer). */
export function statusCounts(calls: readonly Call[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const c of calls) counts[c.status] = (counts[c.status] ?? 0) + 1;
  return counts;
}

/** The calls that did not get 202, by status (0: no answer). */
export function failedCalls(calls: readonly Call[]): Record<string, number> {
  return statusCounts(calls.filter((c) => c.status !== 202));
}

/** The `q` quantile (0..1) of the durations of `calls`, in ms. */
export function quantileMs(calls: readonly Call[], q: number): number {
  const ms = calls.map((c) => c.ms).sort((a, b) => a - b);
  return ms.length === 0 ? 0 : ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)]!;
}
