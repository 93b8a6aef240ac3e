/** One page of a list: its items and the cursor of the next page (null on the last). */
export interface Page<Item> {
  items: Item[];
  next_cursor: string | null;
}

/**
 * The result of a `list` call. `await` it for one page; iterate it with `for await` for every item of every page,
 * each page fetched only when the one before is used up. Nothing is fetched until one of the two starts, and the
 * first page is fetched once whichever comes first.
 */
export class PagePromise<Item, P extends Page<Item> = Page<Item>> implements PromiseLike<P>, AsyncIterable<Item> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<P>;
  readonly #firstCursor: string | undefined;
  #first: Promise<P> | undefined;

  /** `fetchPage(cursor)` asks for the page at `cursor` with the list's own filters; `firstCursor` is the caller's. */
  constructor(fetchPage: (cursor: string | undefined) => Promise<P>, firstCursor?: string) {
    this.#fetchPage = fetchPage;
    this.#firstCursor = firstCursor;
  }

  get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }

  then<A = P, B = never>(onFulfilled?: ((page: P) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.#firstPage().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.#firstPage().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<P> {
    return this.#firstPage().finally(onFinally);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    let page = await this.#firstPage();
    for (;;) {
      yield* page.items;
      if (page.next_cursor === null || page.next_cursor === undefined || page.next_cursor === '') return;
      page = await this.#fetchPage(page.next_cursor);
    }
  }

  #firstPage(): Promise<P> {
    this.#first ??= this.#fetchPage(this.#firstCursor);
    return this.#first;
  }
}
