import type { Clock } from '../../domain/clock.js';
import type { ProjectStore } from '../../ports/projects.js';

const TTL_MS = 5_000;
const MAX_PROJECTS = 10_000;

/**
 * Active signing secrets per project, cached briefly (and bounded) so deliveries do no read per attempt. The entry
 * holds the read itself, so the many attempts that find it expired at once share one read.
 */
export class SigningSecretCache {
  private readonly cache = new Map<string, { secrets: Promise<readonly Uint8Array[]>; until: number }>();

  constructor(
    private readonly projects: ProjectStore,
    private readonly clock: Clock,
  ) {}

  async get(projectId: string): Promise<readonly Uint8Array[]> {
    const now = this.clock.now();
    const hit = this.cache.get(projectId);
    if (hit !== undefined && hit.until > now) return hit.secrets;
    const secrets = this.projects.activeSigningSecrets(projectId, now).then((active) => active.map((s) => s.secret));
    this.cache.delete(projectId);
    if (this.cache.size >= MAX_PROJECTS) this.cache.delete(this.cache.keys().next().value!);
    // A rotation's overlap is hours, far longer than this cache, so a new secret signs within seconds.
    const entry = { secrets, until: now + TTL_MS };
    this.cache.set(projectId, entry);
    // A failed read is not kept: the next attempt reads again.
    secrets.catch(() => {
      if (this.cache.get(projectId) === entry) this.cache.delete(projectId);
    });
    return secrets;
  }
}
