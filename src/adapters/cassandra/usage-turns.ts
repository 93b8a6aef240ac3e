/**
 * Runs the work given for one key one piece at a time, in call order. Conditional writes to one partition from
 * the same process would only make each other lose Paxos rounds and retry; in turn, each round is won by the
 * first try unless another process wrote in between.
 */
export class Turns {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // The map holds only keys with work pending, so it stays as small as the load.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
