import { describe, expect, it } from 'vitest';
import { WriteCoalescer, type CoalescerLimits } from '../../src/adapters/cassandra/shared/write-coalescer.js';

interface Item {
  readonly name: string;
  readonly bytes: number;
}

/** A write that stays open until the test finishes it, recording every group it was given. */
function heldWrites() {
  const groups: string[][] = [];
  const open: Array<{ finish: () => void; fail: (err: Error) => void }> = [];
  const write = (items: Item[]) =>
    new Promise<void>((resolve, reject) => {
      groups.push(items.map((i) => i.name));
      open.push({ finish: resolve, fail: reject });
    });
  return { groups, open, write };
}

const LIMITS: CoalescerLimits = { writesAtOnce: 2, itemsPerWrite: 3, bytesPerWrite: 100, maxWaiting: 5, maxWaitingBytes: 1000 };
const overloaded = () => new Error('overloaded');
const item = (name: string, bytes = 1): Item => ({ name, bytes });
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('WriteCoalescer', () => {
  it('writes an item at once when a write is free, and groups what arrives while all writes are busy', async () => {
    const w = heldWrites();
    const c = new WriteCoalescer(w.write, (i) => i.bytes, LIMITS, overloaded);
    const done = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => c.submit(item(n)));
    expect(w.groups).toEqual([['a'], ['b']]);

    w.open[0]!.finish();
    await settled();
    expect(w.groups).toEqual([['a'], ['b'], ['c', 'd', 'e']]);
    w.open[1]!.finish();
    await settled();
    expect(w.groups).toEqual([['a'], ['b'], ['c', 'd', 'e'], ['f']]);
    w.open[2]!.finish();
    w.open[3]!.finish();
    await expect(Promise.all(done)).resolves.toHaveLength(6);
  });

  it('closes a group before it passes the byte bound, and writes an oversized item alone', async () => {
    const groups: string[][] = [];
    const write = async (items: Item[]) => {
      groups.push(items.map((i) => i.name));
      await settled();
    };
    const c = new WriteCoalescer(write, (i) => i.bytes, LIMITS, overloaded);
    await Promise.all([item('a'), item('b'), item('c', 60), item('d', 50), item('big', 500), item('e', 10)].map((i) => c.submit(i)));
    expect(groups).toEqual([['a'], ['b'], ['c'], ['d'], ['big'], ['e']]);
  });

  it('tells every item of a failed group, and only those, of the failure', async () => {
    const w = heldWrites();
    const c = new WriteCoalescer(w.write, (i) => i.bytes, LIMITS, overloaded);
    const outcomes = Promise.allSettled(['a', 'b', 'x', 'y'].map((n) => c.submit(item(n))));
    w.open[0]!.finish();
    await settled();
    w.open[2]!.fail(new Error('storage down'));
    w.open[1]!.finish();
    const [a, b, x, y] = await outcomes;
    expect([a!.status, b!.status]).toEqual(['fulfilled', 'fulfilled']);
    expect([x, y].map((o) => (o as PromiseRejectedResult).reason)).toEqual([new Error('storage down'), new Error('storage down')]);
    expect(w.groups).toEqual([['a'], ['b'], ['x', 'y']]);
  });

  it('refuses at once beyond the waiting bounds, but always takes an item into an empty queue', async () => {
    const w = heldWrites();
    const c = new WriteCoalescer(w.write, (i) => i.bytes, LIMITS, overloaded);
    const written = [c.submit(item('a')), c.submit(item('b'))];
    const waiting = ['c', 'd', 'e', 'f', 'g'].map((n) => c.submit(item(n)));
    await expect(c.submit(item('h'))).rejects.toThrow('overloaded');

    const bytes = new WriteCoalescer(w.write, (i) => i.bytes, { ...LIMITS, writesAtOnce: 0 }, overloaded);
    const huge = bytes.submit(item('huge', 5000));
    await expect(bytes.submit(item('small'))).rejects.toThrow('overloaded');

    for (let n = 0; n < 4; n++) {
      w.open[n]?.finish();
      await settled();
    }
    await Promise.all([...written, ...waiting]);
    void huge;
  });
});
