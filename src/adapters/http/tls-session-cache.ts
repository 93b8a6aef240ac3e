/**
 * Remembers the last TLS session per destination so a new connection to a known origin can resume instead of doing a
 * full handshake. Bounded: destinations are user-supplied and unbounded in number.
 */
export class TlsSessionCache {
  readonly #sessions = new Map<string, Buffer>();

  constructor(private readonly maxEntries = 256) {}

  get(key: string): Buffer | undefined {
    return this.#sessions.get(key);
  }

  set(key: string, session: Buffer): void {
    // Re-inserting moves the key to the end, so the first key is always the least recently stored.
    this.#sessions.delete(key);
    this.#sessions.set(key, session);
    if (this.#sessions.size > this.maxEntries) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
  }
}
