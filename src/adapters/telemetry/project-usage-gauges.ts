import type { Clock } from '../../domain/clock.js';
import { CachedReading } from './cached-reading.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';

/**
 * Projects the gauges show at most: those that most recently accepted work in this process. The bound keeps the
 * series count (and the reads behind a scrape) fixed however many projects a deployment holds.
 */
export const MAX_GAUGED_PROJECTS = 1_000;
/** Projects read at once behind a scrape. */
const READS_AT_ONCE = 16;

/** A project's monthly allowance and how much of it is used. */
export interface ProjectAllowance {
  readonly used: number;
  readonly allowance: number;
}

/** Reads one project's allowance and usage; null when the project no longer exists. */
export type ProjectAllowanceReader = (projectId: string) => Promise<ProjectAllowance | null>;

/**
 * `ferry_project_allowance_used{project_id}` and `ferry_project_allowance{project_id}`: the only series labelled
 * by project, one pair per project that accepted work (API calls or schedule occurrences) in this process's
 * lifetime, at most `MAX_GAUGED_PROJECTS` (the least recently active dropped). They are read from storage when
 * scraped, through a cached reading like the backlog's (read again sooner when a project joins); the per-call and
 * per-attempt metrics carry no project.
 */
export class ProjectUsageGauges {
  /** Project IDs, least recently active first. */
  private readonly active = new Map<string, true>();
  private latest: string | null = null;
  private readonly reading: CachedReading<ReadonlyMap<string, ProjectAllowance>>;

  constructor(metrics: PrometheusMetrics, read: ProjectAllowanceReader, clock: Clock) {
    this.reading = new CachedReading(() => this.readAll(read), clock);
    const each = (set: (projectId: string, value: ProjectAllowance) => void) => async () => {
      const values = await this.reading.get();
      if (values === null) return;
      for (const [projectId, value] of values) set(projectId, value);
    };
    metrics.gauge(
      'ferry_project_allowance_used',
      `Requests counted against the current UTC month's allowance, per project that accepted work in this process (at most ${MAX_GAUGED_PROJECTS}).`,
      ['project_id'],
      (gauge) => {
        gauge.reset();
        return each((project_id, v) => gauge.set({ project_id }, v.used))();
      },
    );
    metrics.gauge(
      'ferry_project_allowance',
      `The monthly request allowance, per project that accepted work in this process (at most ${MAX_GAUGED_PROJECTS}).`,
      ['project_id'],
      (gauge) => {
        gauge.reset();
        return each((project_id, v) => gauge.set({ project_id }, v.allowance))();
      },
    );
  }

  /** Notes that the project accepted work; cheap enough for the accept path (one map move, none for a repeat). */
  note(projectId: string): void {
    if (projectId === this.latest) return;
    this.latest = projectId;
    const known = this.active.delete(projectId);
    this.active.set(projectId, true);
    if (this.active.size > MAX_GAUGED_PROJECTS) this.active.delete(this.active.keys().next().value!);
    // A project new to the gauges shows at the next scrape, not only once the reading is old.
    if (!known) this.reading.refreshSoon();
  }

  private async readAll(read: ProjectAllowanceReader): Promise<ReadonlyMap<string, ProjectAllowance>> {
    const ids = [...this.active.keys()];
    const values = new Map<string, ProjectAllowance>();
    for (let i = 0; i < ids.length; i += READS_AT_ONCE) {
      const batch = ids.slice(i, i + READS_AT_ONCE);
      const results = await Promise.all(batch.map((id) => read(id)));
      results.forEach((value, n) => {
        if (value !== null) values.set(batch[n]!, value);
      });
    }
    return values;
  }
}
