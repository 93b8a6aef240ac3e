import { describe, expect, it } from 'vitest';
import { RecentKeys } from '../../src/adapters/cassandra/shared/recent-keys.js';
import { WrittenEntries } from '../../src/adapters/cassandra/shared/written-entries.js';
import { FakeClock } from '../support/fake-clock.js';

describe('RecentKeys', () => {
  it('keeps a key for its span, then forgets it', () => {
    const clock = new FakeClock(1_000);
    const keys = new RecentKeys(clock, 100, 10);
    keys.add('a');
    clock.advance(99);
    expect(keys.has('a')).toBe(true);
    clock.advance(1);
    expect(keys.has('a')).toBe(false);
    expect(keys.has('never')).toBe(false);
  });

  it('holds at most its bound, forgetting the oldest first', () => {
    const clock = new FakeClock(0);
    const keys = new RecentKeys(clock, 1_000, 3);
    for (const k of ['a', 'b', 'c', 'd']) keys.add(k);
    expect(['a', 'b', 'c', 'd'].map((k) => keys.has(k))).toEqual([false, true, true, true]);
  });

  it('a key added again counts from then', () => {
    const clock = new FakeClock(0);
    const keys = new RecentKeys(clock, 100, 10);
    keys.add('a');
    clock.advance(80);
    keys.add('a');
    clock.advance(80);
    expect(keys.has('a')).toBe(true);
  });
});

describe('WrittenEntries', () => {
  it('remembers written keys until told to forget them', () => {
    const written = new WrittenEntries();
    expect(written.has('a')).toBe(false);
    written.add('a');
    expect(written.has('a')).toBe(true);
    written.forget('a');
    expect(written.has('a')).toBe(false);
  });
});
