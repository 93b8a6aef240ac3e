import { describe, expect, it } from 'vitest';
import { FakeClock } from '../support/fake-clock.js';

describe('FakeClock', () => {
  it('stands still until moved, and fires due timers in time order, each at its own time', () => {
    const clock = new FakeClock(1_000);
    const fired: Array<[string, number]> = [];
    clock.setTimer(() => fired.push(['late', clock.now()]), 300);
    clock.setTimer(() => fired.push(['early', clock.now()]), 100);
    clock.setTimer(() => fired.push(['early too', clock.now()]), 100);
    expect(clock.now()).toBe(1_000);
    expect(clock.nextAt).toBe(1_100);

    clock.advance(99);
    expect(fired).toEqual([]);
    clock.advanceTo(1_300);
    expect(fired).toEqual([
      ['early', 1_100],
      ['early too', 1_100],
      ['late', 1_300],
    ]);
    expect(clock.now()).toBe(1_300);
    expect(clock.timers).toBe(0);
  });

  it('fires a timer set while firing within the same move when it falls due by its end', () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    const every50 = (): void => {
      fired.push(clock.now());
      clock.setTimer(every50, 50);
    };
    clock.setTimer(every50, 50);
    clock.setTimer(() => clock.setTimer(() => fired.push(-clock.now()), 0), 120);
    clock.advance(200);
    expect(fired).toEqual([50, 100, -120, 150, 200]);
    expect(clock.nextAt).toBe(250);
  });

  it('cancels a timer, and treats a negative wait as none', () => {
    const clock = new FakeClock();
    let fired = 0;
    clock.setTimer(() => fired++, 10).cancel();
    clock.setTimer(() => fired++, -5);
    clock.advance(0);
    expect(fired).toBe(1);
    clock.advance(100);
    expect(fired).toBe(1);
  });

  it('refuses to go back in time', () => {
    const clock = new FakeClock(500);
    expect(() => clock.advanceTo(499)).toThrow(RangeError);
  });

  it('ends a sleep when the clock reaches its end, or at once when its signal aborts', async () => {
    const clock = new FakeClock();
    let slept = false;
    const sleeping = clock.sleep(1_000).then(() => {
      slept = true;
    });
    clock.advance(999);
    await Promise.resolve();
    expect(slept).toBe(false);
    clock.advance(1);
    await sleeping;
    expect(slept).toBe(true);

    const stop = new AbortController();
    const cut = clock.sleep(60_000, stop.signal);
    stop.abort();
    await expect(cut).resolves.toBeUndefined();
    expect(clock.timers).toBe(0);

    await expect(clock.sleep(10, stop.signal)).resolves.toBeUndefined();
    expect(clock.timers).toBe(0);
  });
});
