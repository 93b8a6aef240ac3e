/** Runs the work given for one key one piece at a time, in call order; work for different keys runs at once. */
export class PerKeyQueue {
  /** Per key with work pending, the end of its last piece: the map stays as small as the load. */
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    // A tail never rejects: a piece runs whatever became of the one before it.
    const result = (this.tails.get(key) ?? Promise.resolve()).then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Whether work for `key` is under way or waiting. */
  has(key: string): boolean {
    return this.tails.has(key);
  }
}
