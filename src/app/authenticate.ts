import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { FerryError } from '../domain/errors.js';
import { hashSecret, parseApiKey } from '../domain/ids.js';
import type { Project } from '../domain/project.js';
import type { ProjectStore } from '../ports/projects.js';
import type { KeyUses } from './key-uses.js';

const MAX_CACHED_KEYS = 10_000;

/**
 * Resolves a bearer API key to its project. Verified keys are cached briefly (bounded), so the hot path does no
 * storage read per call; a revocation takes effect once the cache entry expires.
 */
export class Authenticator {
  private readonly cache = new Map<string, { project: Project; keyId: string; until: number }>();

  constructor(
    private readonly projects: ProjectStore,
    private readonly clock: Clock,
    private readonly cacheMs: number,
    /** Told of every call a key authenticates, cached or not, so its last use can be shown. */
    private readonly keyUses: KeyUses | null = null,
  ) {}

  async authenticate(authorization: string | null | undefined): Promise<Project> {
    const token = bearerToken(authorization);
    if (token === null) throw unauthenticated();
    const now = this.clock.now();
    const hit = this.cache.get(token);
    if (hit !== undefined && hit.until > now) {
      this.keyUses?.used(hit.keyId);
      return hit.project;
    }

    const parsed = parseApiKey(token);
    if (parsed === null) throw unauthenticated();
    const key = await this.projects.getApiKey(parsed.keyId);
    if (key === null || key.revokedAt !== null) throw unauthenticated();
    const presented = hashSecret(parsed.secret);
    if (presented.length !== key.secretHash.length || !timingSafeEqual(presented, key.secretHash)) {
      throw unauthenticated();
    }
    const project = await this.projects.getProject(key.projectId);
    if (project === null) throw unauthenticated();
    if (this.cacheMs > 0) this.remember(token, { project, keyId: key.keyId, until: now + this.cacheMs });
    this.keyUses?.used(key.keyId);
    return project;
  }

  private remember(token: string, entry: { project: Project; keyId: string; until: number }): void {
    if (this.cache.size >= MAX_CACHED_KEYS) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(token, entry);
  }
}

function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

function unauthenticated(): FerryError {
  return new FerryError('UNAUTHENTICATED', 'A valid API key is required: send "Authorization: Bearer <API_KEY>".');
}
