import { describe, expect, it } from 'vitest';
import { TimerFloors } from '../../src/adapters/cassandra/timer-floors.js';
import { FIRST_POSITION, TIMER_BUCKET_MS, bucketStart, type Timer } from '../../src/adapters/cassandra/timers.js';
import { clockAt } from '../support/fake-clock.js';

const SETTINGS = { lateWriteMs: 1_000, fullReadEveryMs: 10_000 };
const BUCKET = 29_000_000;
const START = bucketStart(BUCKET);
const SHARD = 3;

function timerAt(dueAt: number): Timer {
  return { shard: SHARD, dueAt, requestId: 'req_1', lease: false };
}

function floorsAt(at: { now: number }): TimerFloors {
  return new TimerFloors(clockAt(() => at.now), SETTINGS);
}

describe('timer floors', () => {
  it('reads a bucket from its start until a read from there has been seen', () => {
    const floors = floorsAt({ now: START + 30_000 });
    expect(floors.start(SHARD, BUCKET)).toBe(FIRST_POSITION);
    expect(floors.empty(SHARD, BUCKET)).toBe(false);
  });

  it('starts at the first timer seen, or lateWriteMs before the read, whichever is earlier', () => {
    const at = { now: START + 30_000 };
    const floors = floorsAt(at);
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, timerAt(START + 29_500), at.now);
    expect(floors.start(SHARD, BUCKET)).toEqual({ dueAt: START + 29_000, requestId: '' });
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, timerAt(START + 20_000), at.now);
    expect(floors.start(SHARD, BUCKET)).toEqual({ dueAt: START + 20_000, requestId: '' });
    // Nothing due up to the read: only the late-write margin holds the start back.
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, undefined, at.now);
    expect(floors.start(SHARD, BUCKET)).toEqual({ dueAt: START + 29_000, requestId: '' });
    // A floor before the bucket's start is a read from its start.
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, timerAt(START), at.now);
    expect(floors.start(SHARD, BUCKET)).toBe(FIRST_POSITION);
    // Floors are per shard and bucket.
    floors.saw(SHARD + 1, BUCKET, FIRST_POSITION, at.now, undefined, at.now);
    expect(floors.start(SHARD, BUCKET)).toBe(FIRST_POSITION);
  });

  it('goes back to the start of a bucket every fullReadEveryMs, however recent its last floor', () => {
    const at = { now: START + 30_000 };
    const floors = floorsAt(at);
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, undefined, at.now);
    for (let i = 1; i < 5; i++) {
      at.now += 2_000;
      const start = floors.start(SHARD, BUCKET);
      expect(start).not.toBe(FIRST_POSITION);
      // Reads from a floor move it on without counting as reads from the start.
      floors.saw(SHARD, BUCKET, start, at.now, undefined, at.now);
    }
    at.now += 2_000;
    expect(floors.start(SHARD, BUCKET)).toBe(FIRST_POSITION);
  });

  it('learns nothing from a read whose floor was dropped meanwhile', () => {
    const at = { now: START + 30_000 };
    const floors = floorsAt(at);
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, undefined, at.now);
    const start = floors.start(SHARD, BUCKET);
    floors.forget(SHARD, BUCKET);
    floors.saw(SHARD, BUCKET, start, at.now, undefined, at.now);
    expect(floors.start(SHARD, BUCKET)).toBe(FIRST_POSITION);
  });

  it('knows a bucket empty only once it ended lateWriteMs before a read that found nothing in it', () => {
    const at = { now: START + TIMER_BUCKET_MS + 500 };
    const floors = floorsAt(at);
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, undefined, Number.MAX_SAFE_INTEGER);
    expect(floors.empty(SHARD, BUCKET)).toBe(false);
    at.now += 600;
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, undefined, Number.MAX_SAFE_INTEGER);
    expect(floors.empty(SHARD, BUCKET)).toBe(true);
    // A timer found in it makes it occupied again.
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, timerAt(START + 1), Number.MAX_SAFE_INTEGER);
    expect(floors.empty(SHARD, BUCKET)).toBe(false);
    at.now += SETTINGS.fullReadEveryMs;
    expect(floors.empty(SHARD, BUCKET)).toBe(false);
  });
});
