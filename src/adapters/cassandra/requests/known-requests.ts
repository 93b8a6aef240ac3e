import type { StoredRequest } from '../../../domain/request.js';

/** Requests remembered at most, and their body bytes at most: about the claims a process has in flight. */
const MAX_KNOWN = 20_000;
const MAX_KNOWN_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Requests as this process last wrote them, so the next change of the same version needs no read first. While
 * this process holds the request's shard nobody else changes its state (others only ask for a cancel, in a cell
 * of its own), so the state remembered at a version is the one stored; once the shard has moved, whatever this
 * process writes loses to the new owner's writes (see `OwnerTimestamps`).
 */
export interface Known {
  readonly request: StoredRequest;
  /** The shard epoch under which this process wrote it (see `RequestChanges.apply`). */
  readonly basis: number;
}

export class KnownRequests {
  private readonly byId = new Map<string, Known>();
  private bodyBytes = 0;

  remember(r: StoredRequest, basis: number): void {
    this.forget(r.id);
    this.byId.set(r.id, { request: r, basis });
    this.bodyBytes += r.body?.byteLength ?? 0;
    while (this.byId.size > MAX_KNOWN || this.bodyBytes > MAX_KNOWN_BODY_BYTES) this.forget(this.byId.keys().next().value!);
  }

  /** The remembered state of `id` at `version`, taken out; undefined when it is not known. */
  take(id: string, version: number): Known | undefined {
    const known = this.byId.get(id);
    if (known === undefined) return undefined;
    this.forget(id);
    return known.request.version === version ? known : undefined;
  }

  /** The remembered state of `id`, whatever its version, taken out; undefined when it is not known. */
  takeAny(id: string): Known | undefined {
    const known = this.byId.get(id);
    if (known !== undefined) this.forget(id);
    return known;
  }

  /** The remembered state of `id`, left in place. */
  peek(id: string): Known | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Forgets `id`: this process changed it in a way not remembered here. */
  forget(id: string): void {
    const known = this.byId.get(id);
    if (known === undefined) return;
    this.byId.delete(id);
    this.bodyBytes -= known.request.body?.byteLength ?? 0;
  }
}
