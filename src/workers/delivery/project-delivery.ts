import type { Clock } from '../../domain/clock.js';
import type { ProjectStore } from '../../ports/projects.js';

const TTL_MS = 5_000;
const MAX_PROJECTS = 10_000;

/** What delivering an attempt needs of its project. */
export interface ProjectDelivery {
  /** Active signing secrets, newest first. */
  readonly secrets: readonly Uint8Array[];
  /** Whether attempts keep the first bytes of response bodies (`Project.captureResponseBodies`). */
  readonly captureResponseBodies: boolean;
}

/**
 * What delivery needs of each project (signing secrets, body capture), cached briefly (and bounded) so deliveries
 * do no read per attempt. The entry holds the read itself, so the many attempts that find it expired at once share
 * one read.
 */
export class ProjectDeliveryCache {
  private readonly cache = new Map<string, { settings: Promise<ProjectDelivery>; until: number }>();

  constructor(
    private readonly projects: ProjectStore,
    private readonly clock: Clock,
  ) {}

  async get(projectId: string): Promise<ProjectDelivery> {
    const now = this.clock.now();
    const hit = this.cache.get(projectId);
    if (hit !== undefined && hit.until > now) return hit.settings;
    const settings = Promise.all([this.projects.activeSigningSecrets(projectId, now), this.projects.getProject(projectId)]).then(
      ([active, project]) => ({
        secrets: active.map((s) => s.secret),
        // A project gone meanwhile keeps the default; its requests are not ours to judge here.
        captureResponseBodies: project?.captureResponseBodies ?? true,
      }),
    );
    this.cache.delete(projectId);
    if (this.cache.size >= MAX_PROJECTS) this.cache.delete(this.cache.keys().next().value!);
    // A rotation's overlap is hours, far longer than this cache, so a new secret signs within seconds; a change of
    // body capture applies within the same 5 s.
    const entry = { settings, until: now + TTL_MS };
    this.cache.set(projectId, entry);
    // A failed read is not kept: the next attempt reads again.
    settings.catch(() => {
      if (this.cache.get(projectId) === entry) this.cache.delete(projectId);
    });
    return settings;
  }
}
