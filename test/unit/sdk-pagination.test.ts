import { describe, expect, it } from 'vitest';
import { PagePromise, type Page } from '../../sdk/src/client/pagination.js';

/** Three pages of a list held in memory, and the cursors asked for, in order. */
function pages() {
  const byCursor: Record<string, Page<number>> = {
    first: { items: [1, 2], next_cursor: 'c2' },
    c2: { items: [3, 4], next_cursor: 'c3' },
    c3: { items: [5], next_cursor: null },
  };
  const asked: (string | undefined)[] = [];
  const fetchPage = async (cursor: string | undefined) => {
    asked.push(cursor);
    return byCursor[cursor ?? 'first']!;
  };
  return { asked, fetchPage };
}

describe('SDK PagePromise', () => {
  it('fetches nothing until awaited or iterated', async () => {
    const { asked, fetchPage } = pages();
    new PagePromise<number>(fetchPage);
    await Promise.resolve();
    expect(asked).toEqual([]);
  });

  it('awaits as the first page, fetched once however often it is awaited', async () => {
    const { asked, fetchPage } = pages();
    const list = new PagePromise<number>(fetchPage);
    expect(await list).toEqual({ items: [1, 2], next_cursor: 'c2' });
    expect((await list).items).toEqual([1, 2]);
    expect(asked).toEqual([undefined]);
  });

  it('iterates every item of every page, following next_cursor, reusing an awaited first page', async () => {
    const { asked, fetchPage } = pages();
    const list = new PagePromise<number>(fetchPage);
    await list;
    const items: number[] = [];
    for await (const item of list) items.push(item);
    expect(items).toEqual([1, 2, 3, 4, 5]);
    expect(asked).toEqual([undefined, 'c2', 'c3']);
  });

  it('starts from the caller’s cursor and stops early without fetching further', async () => {
    const { asked, fetchPage } = pages();
    for await (const item of new PagePromise<number>(fetchPage, 'c2')) if (item === 3) break;
    expect(asked).toEqual(['c2']);
  });

  it('rejects through then, catch and iteration alike', async () => {
    const failing = () => new PagePromise<number>(async () => Promise.reject(new Error('down')));
    await expect(failing()).rejects.toThrow('down');
    expect(await failing().catch((e: unknown) => (e as Error).message)).toBe('down');
    await expect((async () => {
      for await (const _ of failing()) void _;
    })()).rejects.toThrow('down');
  });
});
