import { describe, expect, it } from 'vitest';
import { AcceptRequests, type NewRequest } from '../../../src/app/accept-requests.js';
import { AllowanceLeases } from '../../../src/app/allowance-leases.js';
import { DEFAULT_GUARD_TIMINGS, IdempotencyGuard, type KeyedCall } from '../../../src/app/idempotency-guard.js';
import { RequestCommands } from '../../../src/app/request-commands.js';
import { fingerprint } from '../../../src/domain/fingerprint.js';
import type { Project } from '../../../src/domain/project.js';
import type { Backend } from '../../../src/ports/backend.js';
import type { IdempotencyStore } from '../../../src/ports/idempotency.js';
import type { RequestStore } from '../../../src/ports/requests.js';
import { withMethods } from '../../support/with-methods.js';
import { clockAt } from '../../support/fake-clock.js';
import { PROJECT_A, useBackend, type BackendFactory } from './harness.js';

const LEASE_MS = DEFAULT_GUARD_TIMINGS.leaseMs;

function item(n: number, itemKey: KeyedCall | null = null): NewRequest {
  return {
    definition: {
      url: `https://example.com/hook?n=${n}`,
      method: 'POST',
      headers: [],
      callbacks: null,
      body: new TextEncoder().encode(`body ${n}`),
      contentType: 'text/plain',
      maxAttempts: 3,
      timeoutSeconds: 50,
      queue: 'default',
      flowKeys: [],
      metadata: {},
    },
    deliverAt: null,
    source: 'api',
    replayedFromRequestId: null,
    scheduleId: null,
    itemKey,
  };
}

const key = (k: string): KeyedCall => ({ key: k, fingerprint: `fp-${k}`, field: 'Idempotency-Key' });

/** One step of the real stores made to fail, once, the way a lost answer or a crash would. */
interface Faults {
  /** The insert lands, but its caller hears of a failure. */
  insertLandsThenFails?: boolean;
  /** Storing the outcome fails. */
  completeFails?: boolean;
  /** Giving the keys back fails too, as when the process died: the claims stay as they were. */
  letGoFails?: boolean;
}

function faulty(backend: Backend, faults: Faults): { requests: RequestStore; idempotency: IdempotencyStore } {
  const f = { ...faults };
  const real = backend.idempotency;
  const requests = withMethods(backend.requests, {
    insertMany: async (rs) => {
      await backend.requests.insertMany(rs);
      if (f.insertLandsThenFails === true) {
        f.insertLandsThenFails = false;
        throw new Error('the answer to the insert was lost');
      }
    },
  });
  const gone = () => {
    if (f.letGoFails === true) throw new Error('the process is gone');
  };
  const idempotency = withMethods(real, {
    completeAll: async (projectId, outcomes) => {
      if (f.completeFails === true) {
        f.completeFails = false;
        throw new Error('the outcome was not stored');
      }
      await real.completeAll(projectId, outcomes);
    },
    abandonAll: async (projectId, keys) => {
      gone();
      await real.abandonAll(projectId, keys);
    },
    releaseAll: async (projectId, keys) => {
      gone();
      await real.releaseAll(projectId, keys);
    },
  });
  return { requests, idempotency };
}

/** Accepting with idempotency keys, over a real backend, when a step after the insert fails. */
export function describeAcceptResumeContract(makeBackend: BackendFactory): void {
  describe('AcceptRequests with idempotency keys, after a failure past the insert', () => {
    const backend = useBackend(makeBackend);
    let time = Date.now();
    const clock = clockAt(() => time);
    const project: Project = { id: PROJECT_A, name: 'a', monthlyAllowance: 1_000, scheduleAllowance: 1, retentionDays: 30, captureResponseBodies: true, createdAt: time };

    const acceptor = (faults: Faults = {}) => {
      const { requests, idempotency } = faulty(backend(), faults);
      return new AcceptRequests(requests, new AllowanceLeases(backend().usage, 1), new IdempotencyGuard(idempotency, clock), clock);
    };
    const listed = async () =>
      (await backend().requests.list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 50 })).map((r) => r.id).sort();

    it('answers a retry with the requests stored before the outcome could be', async () => {
      time = Date.now();
      await expect(acceptor({ completeFails: true }).accept(project, key('k1'), [item(1), item(2)])).rejects.toThrow();
      const stored = await listed();
      expect(stored).toHaveLength(2);

      const again = await acceptor().accept(project, key('k1'), [item(1), item(2)]);
      expect(again.map((a) => a.id).sort()).toEqual(stored);
      expect(await listed()).toEqual(stored);
      expect(await acceptor().accept(project, key('k1'), [item(1), item(2)])).toEqual(again);
    });

    it('finds the request of an insert whose answer was lost instead of creating another', async () => {
      time = Date.now();
      await expect(acceptor({ insertLandsThenFails: true }).accept(project, key('k2'), [item(3)])).rejects.toThrow();
      const stored = await listed();
      expect(stored).toHaveLength(1);

      const [again] = await acceptor().accept(project, key('k2'), [item(3)]);
      expect([again?.id]).toEqual(stored);
      expect(again).toMatchObject({ status: 'queued', projectId: PROJECT_A });
      expect(await listed()).toEqual(stored);
    });

    it('finishes the work of a holder that died after its insert, once its claim is stale', async () => {
      time = Date.now();
      const dying = acceptor({ completeFails: true, letGoFails: true });
      await expect(dying.accept(project, key('k3'), [item(4)])).rejects.toThrow();
      const stored = await listed();
      expect(stored).toHaveLength(1);

      time += LEASE_MS + 1;
      const [again] = await acceptor().accept(project, key('k3'), [item(4)]);
      expect([again?.id]).toEqual(stored);
      expect(await listed()).toEqual(stored);
    });

    it('keeps per-item keys of a batch to the same requests across a retry', async () => {
      time = Date.now();
      const items = [item(5, key('i5')), item(6, key('i6')), item(7)];
      await expect(acceptor({ insertLandsThenFails: true }).accept(project, null, items)).rejects.toThrow();
      const first = await listed();
      expect(first).toHaveLength(3);

      const again = await acceptor().accept(project, null, items);
      // The keyed items are the ones stored before; the unkeyed one is new, as it would be without the failure.
      expect(first).toContain(again[0]?.id);
      expect(first).toContain(again[1]?.id);
      expect(first).not.toContain(again[2]?.id);
      expect(await listed()).toHaveLength(4);
    });

    it("answers a batch's retry from the record its first call left in the project's namespace, where batch keys once were", async () => {
      time = Date.now();
      const commands = new RequestCommands(acceptor(), backend().requests, backend().idempotency, clock, { allowPrivateDestinations: false });
      const input = [{ url: 'https://example.com/hook?n=8', headers: {}, metadata: {} }];
      // What a batch call stored before batch keys had a namespace of their own: its key beside the items' keys.
      const first = await acceptor().accept(project, { key: 'b1', fingerprint: fingerprint('batch', input), field: 'Idempotency-Key' }, [item(8)]);
      const again = await commands.batch(project, input, 'b1');
      expect(again.map((a) => a.id)).toEqual(first.map((a) => a.id));
      expect(await listed()).toHaveLength(1);
      // Another input under a key of that namespace (a single create's) is no concern of the batch's.
      const [single] = await acceptor().accept(project, null, [item(9, key('b2'))]);
      const [other] = await commands.batch(project, input, 'b2');
      expect(await listed()).toEqual([first[0]!.id, single!.id, other!.id].sort());
    });
  });
}
