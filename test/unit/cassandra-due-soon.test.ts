import { describe, expect, it } from 'vitest';
import { DueSoon } from '../../src/adapters/cassandra/requests/due-soon.js';
import { shardOf } from '../../src/domain/shards.js';
import { aRequest } from '../contract/suite/harness.js';

const SHARDS = 4;
const ALL = new Set([0, 1, 2, 3]);

describe('DueSoon, the owner working set', () => {
  it('hands out due work earliest first, at most the limit, and nothing not yet due', () => {
    const soon = new DueSoon(SHARDS);
    const rs = [500, 100, 300, 200, 900].map((dueAt) => aRequest({ status: 'queued', dueAt }));
    for (const r of rs) soon.remember(r, 1);
    expect(soon.due(400, ALL, 2).map((t) => t.dueAt)).toEqual([100, 200]);
    expect(soon.due(400, ALL, 10).map((t) => t.dueAt)).toEqual([300]);
    expect(soon.due(400, ALL, 10)).toEqual([]);
    expect(soon.earliest()).toBe(500);
    const timers = soon.due(1_000, ALL, 10);
    expect(timers.map((t) => [t.dueAt, t.lease, t.shard === shardOf(t.id, SHARDS)])).toEqual([
      [500, false, true],
      [900, false, true],
    ]);
  });

  it('keeps a request remembered until it is taken, once', () => {
    const soon = new DueSoon(SHARDS);
    const r = aRequest({ status: 'queued', dueAt: 10 });
    soon.remember(r, 7);
    expect(soon.due(10, ALL, 1)).toHaveLength(1);
    expect(soon.take(r.id)).toEqual({ request: r, basis: 7 });
    expect(soon.take(r.id)).toBeUndefined();
  });

  it('skips what was forgotten or taken, and what changed its due time since', () => {
    const soon = new DueSoon(SHARDS);
    const [a, b, c] = [aRequest({ status: 'queued', dueAt: 1 }), aRequest({ status: 'queued', dueAt: 2 }), aRequest({ status: 'queued', dueAt: 3 })];
    for (const r of [a, b, c]) soon.remember(r, 1);
    soon.forget(a.id);
    soon.take(b.id);
    soon.remember({ ...c, dueAt: 50 }, 1);
    expect(soon.earliest()).toBe(50);
    expect(soon.due(10, ALL, 10)).toEqual([]);
    expect(soon.due(50, ALL, 10).map((t) => t.id)).toEqual([c.id]);
    expect(soon.earliest()).toBeNull();
  });

  it('leaves work of shards not asked for to the timer scans', () => {
    const soon = new DueSoon(SHARDS);
    const rs = Array.from({ length: 40 }, (_, i) => aRequest({ status: 'queued', dueAt: i }));
    for (const r of rs) soon.remember(r, 1);
    const only = new Set([shardOf(rs[0]!.id, SHARDS)]);
    const got = soon.due(100, only, 100);
    expect(got.length).toBeGreaterThan(0);
    expect(got.every((t) => only.has(t.shard))).toBe(true);
    // Still remembered: a claim found through the timers takes it from memory.
    const other = rs.find((r) => !only.has(shardOf(r.id, SHARDS)))!;
    expect(soon.take(other.id)?.request).toBe(other);
  });

  it('remembers nothing without a due time', () => {
    const soon = new DueSoon(SHARDS);
    const r = aRequest({ status: 'queued', dueAt: null });
    soon.remember(r, 1);
    expect(soon.take(r.id)).toBeUndefined();
    expect(soon.earliest()).toBeNull();
  });

  it('keeps the newest state of a request, and forgets the oldest once their bodies pass the byte bound', () => {
    const soon = new DueSoon(SHARDS);
    const r = aRequest({ status: 'queued', dueAt: 5, version: 1 });
    soon.remember(r, 1);
    soon.remember({ ...r, version: 2 }, 1);
    expect(soon.take(r.id)?.request.version).toBe(2);

    const big = () => aRequest({ status: 'queued', dueAt: 5, body: new Uint8Array(20 * 1024 * 1024) });
    const [a, b, c, d] = [big(), big(), big(), big()];
    for (const x of [a, b, c, d]) soon.remember(x, 1);
    expect(soon.take(a.id)).toBeUndefined();
    expect(soon.take(d.id)?.request).toBe(d);
    expect(soon.take(c.id)?.request).toBe(c);
  });
});
