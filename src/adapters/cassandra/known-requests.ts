import type { StoredRequest } from '../../domain/request.js';

/** Requests remembered at most, and their body bytes at most: about the claims a process has in flight. */
const MAX_KNOWN = 20_000;
const MAX_KNOWN_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Requests as this process last wrote them, so the next change of the same version needs no read first. A
 * version names exactly one state (every change raises it, under a condition on it), and the change itself is
 * still conditional on that version, so a remembered state that went stale only makes the write not apply.
 */
export class KnownRequests {
  private readonly byId = new Map<string, StoredRequest>();
  private bodyBytes = 0;

  remember(r: StoredRequest): void {
    this.forget(r.id);
    this.byId.set(r.id, r);
    this.bodyBytes += r.body?.byteLength ?? 0;
    while (this.byId.size > MAX_KNOWN || this.bodyBytes > MAX_KNOWN_BODY_BYTES) this.forget(this.byId.keys().next().value!);
  }

  /** The remembered state of `id` at `version`, taken out; undefined when it is not known. */
  take(id: string, version: number): StoredRequest | undefined {
    const r = this.byId.get(id);
    if (r === undefined) return undefined;
    this.forget(id);
    return r.version === version ? r : undefined;
  }

  private forget(id: string): void {
    const r = this.byId.get(id);
    if (r === undefined) return;
    this.byId.delete(id);
    this.bodyBytes -= r.body?.byteLength ?? 0;
  }
}
