import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CachedBacklog } from '../../src/adapters/telemetry/backlog-gauges.js';
import { EmbeddedBacklog } from '../../src/adapters/telemetry/embedded-backlog.js';
import { observedBackend, StorageAvailability } from '../../src/adapters/telemetry/observed-storage.js';
import { openEmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import type { StoredRequest } from '../../src/domain/request.js';
import type { Backend } from '../../src/ports/backend.js';
import { StorageUnavailable } from '../../src/ports/errors.js';
import { VersionConflict } from '../../src/ports/requests.js';
import { clockAt } from '../support/fake-clock.js';

/** A backend whose request store fails as told; the other stores are never called here. */
function flakyBackend() {
  const state = { fail: null as Error | null, calls: 0 };
  class Requests {
    readonly label = 'requests';
    async get(): Promise<null> {
      state.calls++;
      if (state.fail !== null) throw state.fail;
      return null;
    }
    describe(): string {
      return this.label;
    }
  }
  const backend = { requests: new Requests(), schedules: {}, idempotency: {}, usage: {}, projects: {}, secrets: {}, close: async () => undefined } as unknown as Backend;
  return { state, backend };
}

describe('observed storage', () => {
  it('counts StorageUnavailable by store and logs each change of availability once', async () => {
    const { state, backend } = flakyBackend();
    const errors: string[] = [];
    const lines: Array<[string, string]> = [];
    let now = 0;
    const availability = new StorageAvailability((level, msg) => void lines.push([level, msg]), () => now);
    const observed = observedBackend(backend, { storageError: (store) => void errors.push(store) }, availability);
    const requests = observed.requests as unknown as { get(): Promise<null>; describe(): string; label: string };

    await requests.get();
    state.fail = new StorageUnavailable('down');
    await expect(requests.get()).rejects.toBeInstanceOf(StorageUnavailable);
    await expect(requests.get()).rejects.toBeInstanceOf(StorageUnavailable);
    state.fail = new VersionConflict('moved on');
    await expect(requests.get()).rejects.toBeInstanceOf(VersionConflict);
    state.fail = null;
    now = 1_500;
    await requests.get();
    await requests.get();

    expect(errors).toEqual(['requests', 'requests']);
    expect(lines).toEqual([
      ['warn', 'storage unavailable'],
      ['info', 'storage available again'],
    ]);
    // The store's own methods still run on the store itself.
    expect(requests.describe()).toBe('requests');
    expect(requests.label).toBe('requests');
    expect(state.calls).toBe(6);
  });

  it('takes no success of a call started before the failure as a recovery', async () => {
    const lines: string[] = [];
    const availability = new StorageAvailability((_level, msg) => void lines.push(msg), () => 0);
    const early = availability.start();
    availability.failed('requests', 'get', new StorageUnavailable('down'));
    availability.succeeded(early);
    expect(lines).toEqual(['storage unavailable']);
    availability.succeeded(availability.start());
    expect(lines).toEqual(['storage unavailable', 'storage available again']);
  });
});

describe('cached backlog', () => {
  it('reads once for many scrapes, again only once the reading is old, and keeps the last reading on failure', async () => {
    let now = 0;
    let reads = 0;
    let fail = false;
    const cached = new CachedBacklog(
      async () => {
        reads++;
        if (fail) throw new Error('down');
        return { counts: null, oldestDueAt: reads };
      },
      clockAt(() => now),
      10_000,
    );
    const first = await Promise.all([cached.get(), cached.get(), cached.get()]);
    expect(reads).toBe(1);
    expect(first.map((s) => s?.oldestDueAt)).toEqual([1, 1, 1]);
    now = 9_999;
    expect((await cached.get())?.oldestDueAt).toBe(1);
    now = 10_000;
    expect((await cached.get())?.oldestDueAt).toBe(2);
    now = 30_000;
    fail = true;
    expect((await cached.get())?.oldestDueAt).toBe(2);
    expect(reads).toBe(3);
  });

  it('spaces out readings that are costly', async () => {
    let now = 0;
    let reads = 0;
    const cached = new CachedBacklog(
      async () => {
        reads++;
        now += 1_000; // a reading that takes a second of the clock
        return { counts: null, oldestDueAt: null };
      },
      clockAt(() => now),
      10_000,
    );
    await cached.get();
    now += 20_000;
    await cached.get();
    expect(reads).toBe(1);
    now += 40_000;
    await cached.get();
    expect(reads).toBe(2);
  });
});

describe('embedded backlog', () => {
  it('counts waiting requests by state over the due index, in chunks, and finds the oldest due one', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ferry-backlog-')), 'ferry.db');
    const backend = openEmbeddedBackend({ path });
    const base: Omit<StoredRequest, 'id' | 'status' | 'dueAt' | 'attemptCount' | 'scheduledAt'> = {
      url: 'https://example.com/',
      method: 'POST',
      headers: [],
      body: null,
      contentType: null,
      maxAttempts: 3,
      timeoutSeconds: 30,
      queue: 'default',
      flowKeys: [],
      waitingFor: null,
      callbacks: null,
      callbackForRequestId: null,
      callbackRequestIds: [],
      metadata: {},
      projectId: 'prj_1',
      source: 'api',
      replayedFromRequestId: null,
      scheduleId: null,
      createdAt: 1_000,
      updatedAt: 1_000,
      startedAt: null,
      completedAt: null,
      cancelledAt: null,
      cancelRequestedAt: null,
      lastStatusCode: null,
      version: 1,
    };
    const rows: StoredRequest[] = [];
    // More than one chunk of each state, with many sharing a due time.
    for (let i = 0; i < 12_000; i++) {
      const kind = i % 4;
      const status = kind === 0 || kind === 1 ? 'queued' : kind === 2 ? 'scheduled' : 'succeeded';
      rows.push({
        ...base,
        id: `req_${String(i).padStart(6, '0')}`,
        status,
        dueAt: status === 'succeeded' ? null : 5_000 + Math.floor(i / 100),
        attemptCount: kind === 1 ? 2 : 0,
        scheduledAt: status === 'scheduled' ? 5_000 : null,
      });
    }
    for (let i = 0; i < rows.length; i += 500) await backend.requests.insertMany(rows.slice(i, i + 500));
    const backlog = new EmbeddedBacklog(path);
    try {
      expect(await backlog.read()).toEqual({ counts: { queued: 3_000, scheduled: 3_000, awaitingRetry: 3_000 }, oldestDueAt: 5_000 });
    } finally {
      backlog.close();
      await backend.close();
    }
  });
});
