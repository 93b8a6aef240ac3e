import { describe, expect, it } from 'vitest';
import { Readiness, type CheckState } from '../../src/edge/health/readiness.js';
import { FakeClock } from '../support/fake-clock.js';

/** A probe the test answers by hand, counting how often it was asked. */
class ManualProbe {
  calls = 0;
  private pending: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];

  readonly probe = (): Promise<void> => {
    this.calls += 1;
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  };

  answer(): void {
    for (const p of this.pending.splice(0)) p.resolve();
  }

  fail(reason: string): void {
    for (const p of this.pending.splice(0)) p.reject(new Error(reason));
  }
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function states(report: Awaited<ReturnType<Readiness['report']>>): Record<string, CheckState> {
  return Object.fromEntries(report.checks.map((c) => [c.name, c.state]));
}

describe('Readiness', () => {
  it('is ready when every check answers, and names the one that fails', async () => {
    const clock = new FakeClock();
    const storage = new ManualProbe();
    const readiness = new Readiness(
      [
        { name: 'storage', probe: storage.probe },
        { name: 'kafka', probe: async () => undefined },
      ],
      clock,
    );
    const first = readiness.report();
    await flush();
    storage.answer();
    expect(await first).toEqual({ ready: true, draining: false, checks: [{ name: 'storage', state: 'ok' }, { name: 'kafka', state: 'ok' }] });

    clock.advance(1_000);
    const second = readiness.report();
    await flush();
    storage.fail('disk full');
    const report = await second;
    expect(report.ready).toBe(false);
    expect(states(report)).toEqual({ storage: 'failed', kafka: 'ok' });
  });

  it('probes at most once per cache period, however many ask', async () => {
    const clock = new FakeClock();
    const storage = new ManualProbe();
    const readiness = new Readiness([{ name: 'storage', probe: storage.probe }], clock, { cacheMs: 1_000 });
    const storm = Array.from({ length: 50 }, () => readiness.report());
    await flush();
    storage.answer();
    await Promise.all(storm);
    expect(storage.calls).toBe(1);

    clock.advance(999);
    await Promise.all(Array.from({ length: 50 }, () => readiness.report()));
    expect(storage.calls).toBe(1);

    clock.advance(1);
    const next = readiness.report();
    await flush();
    expect(storage.calls).toBe(2);
    storage.answer();
    expect((await next).ready).toBe(true);
  });

  it('counts a probe that does not answer in time as failing, and starts no second one while it hangs', async () => {
    const clock = new FakeClock();
    const storage = new ManualProbe();
    const changes: Array<[string, CheckState]> = [];
    const readiness = new Readiness([{ name: 'storage', probe: storage.probe }], clock, {
      timeoutMs: 1_500,
      cacheMs: 1_000,
      onCheckChanged: (name, state) => changes.push([name, state]),
    });
    const hanging = readiness.report();
    await flush();
    clock.advance(1_499);
    await flush();
    clock.advance(1);
    expect(states(await hanging)).toEqual({ storage: 'timeout' });

    // Long after the cache period, the probe still hangs: no second probe joins it, and the answer comes at once.
    clock.advance(60_000);
    expect(states(await readiness.report())).toEqual({ storage: 'timeout' });
    expect(storage.calls).toBe(1);

    storage.answer();
    await flush();
    expect(states(await readiness.report())).toEqual({ storage: 'ok' });
    expect(changes).toEqual([
      ['storage', 'timeout'],
      ['storage', 'ok'],
    ]);
  });

  it('reports draining from the moment it starts, and wakes those who pause', async () => {
    const clock = new FakeClock();
    const readiness = new Readiness([{ name: 'storage', probe: async () => undefined }], clock);
    expect((await readiness.report()).ready).toBe(true);

    let woken = false;
    const pause = readiness.pause(60_000, new AbortController().signal).then(() => (woken = true));
    await flush();
    expect(woken).toBe(false);
    readiness.startDraining();
    await pause;
    expect(clock.timers).toBe(0);

    const report = await readiness.report();
    expect(report).toMatchObject({ ready: false, draining: true });
    expect(states(report)).toEqual({ storage: 'ok' });
    // Once draining, a pause returns at once.
    await readiness.pause(60_000, new AbortController().signal);
  });

  it('ends a pause when its signal aborts', async () => {
    const clock = new FakeClock();
    const readiness = new Readiness([], clock);
    const abort = new AbortController();
    const pause = readiness.pause(60_000, abort.signal);
    abort.abort();
    await pause;
    expect(clock.timers).toBe(0);
  });
});
