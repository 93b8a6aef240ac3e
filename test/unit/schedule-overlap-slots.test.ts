import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedBackend, type EmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { OverlapSlots, SLOT_STALE_MS } from '../../src/app/overlap-slots.js';
import type { RequestStatus } from '../../src/domain/request.js';
import { FakeClock } from '../support/fake-clock.js';

const T0 = Date.UTC(2030, 0, 1);
const PROJECT = 'prj_unit_overlap';

const dir = mkdtempSync(join(tmpdir(), 'ferry-overlap-'));
// One database for the file; each case has a schedule, so slots of its own.
const backend: EmbeddedBackend = openEmbeddedBackend({ path: join(dir, 'slots.db') });
afterAll(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

let cases = 0;
let SCHEDULE: string;
let clock: FakeClock;
let statuses: Map<string, RequestStatus>;
let slots: OverlapSlots;
beforeEach(() => {
  SCHEDULE = `sch_unit_overlap_${++cases}`;
  clock = new FakeClock(T0);
  statuses = new Map();
  slots = new OverlapSlots(backend.idempotency, async (_projectId, id) => statuses.get(id) ?? null, clock);
});

const take = (previous: string | null, starter: string) => slots.take(PROJECT, SCHEDULE, previous, starter);

describe('one run at a time under skip and buffer_one', () => {
  it('of starters racing after the same ended run, one gets the slot', async () => {
    statuses.set('req_p', 'succeeded');
    const results = await Promise.all(['occurrence:1', 'trigger:a', 'trigger:b', 'trigger:c'].map((starter) => take('req_p', starter)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
  });

  it('gives no slot while the previous run is active, and claims nothing meanwhile', async () => {
    statuses.set('req_p', 'queued');
    expect(await take('req_p', 'trigger:a')).toBeNull();
    statuses.set('req_p', 'failed');
    expect(await take('req_p', 'trigger:b')).not.toBeNull();
  });

  it('a starter asking again finds its own slot; a filled slot leads later starters to the run it started', async () => {
    statuses.set('req_p', 'succeeded');
    const slot = (await take('req_p', 'occurrence:1'))!;
    expect(await take('req_p', 'occurrence:1')).toEqual(slot);
    await slots.fill(slot, 'req_q');
    statuses.set('req_q', 'queued');
    // A starter whose run state still names req_p as the latest run: req_q is under way.
    expect(await take('req_p', 'trigger:a')).toBeNull();
    statuses.set('req_q', 'succeeded');
    const next = await take('req_p', 'trigger:a');
    expect(next).toEqual({ scheduleId: SCHEDULE, after: 'req_q', starter: 'trigger:a' });
    // The first run of a schedule has a slot of its own.
    expect(await take(null, 'occurrence:2')).not.toBeNull();
    expect(await take(null, 'occurrence:3')).toBeNull();
  });

  it('a released slot is free again; one left unfilled by a holder that died is free after a minute', async () => {
    statuses.set('req_p', 'succeeded');
    const released = (await take('req_p', 'trigger:a'))!;
    await slots.release(released);
    const abandoned = await take('req_p', 'trigger:b');
    expect(abandoned).not.toBeNull();
    expect(await take('req_p', 'trigger:c')).toBeNull();
    clock.advance(SLOT_STALE_MS + 1);
    expect(await take('req_p', 'trigger:c')).toEqual({ scheduleId: SCHEDULE, after: 'req_p', starter: 'trigger:c' });
    // The slot moved to the new holder: the one that died gets nothing when it comes back.
    expect(await take('req_p', 'trigger:d')).toBeNull();
  });
});
