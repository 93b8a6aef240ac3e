import type { Clock } from '../domain/clock.js';
import type { ProjectStore } from '../ports/projects.js';

/**
 * A key's last use is written at most this often per process: `key list` shows it to the minute, and a busy key
 * costs one small write a minute instead of one per call.
 */
export const KEY_USE_WRITE_EVERY_MS = 60_000;
/** Keys remembered at once; past it the least recently written is forgotten (its next use writes again). */
const MAX_REMEMBERED_KEYS = 10_000;

/**
 * Records when API keys are used, sparingly: the first use of a key in this process writes at once, later uses
 * only once `KEY_USE_WRITE_EVERY_MS` has passed since the last write. Writes run beside the call, never in its
 * way: a failed one is not retried (the next one due carries a newer time anyway).
 */
export class KeyUses {
  /** Key ID → when its use was last written, least recently written first. */
  private readonly written = new Map<string, number>();

  constructor(
    private readonly projects: ProjectStore,
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** Notes a use of the key; writes it when the last write is old enough. Cheap, synchronous, never throws. */
  used(keyId: string): void {
    const now = this.clock.now();
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < KEY_USE_WRITE_EVERY_MS) return;
    this.written.delete(keyId);
    if (this.written.size >= MAX_REMEMBERED_KEYS) this.written.delete(this.written.keys().next().value!);
    this.written.set(keyId, now);
    this.projects.recordKeyUse(keyId, now).catch(this.onError);
  }
}
