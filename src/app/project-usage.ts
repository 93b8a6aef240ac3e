import type { Clock } from '../domain/clock.js';
import type { Project } from '../domain/project.js';
import type { UsageStore } from '../ports/usage.js';
import { SCHEDULE_COUNT_PERIOD } from './schedule-commands.js';
import { usagePeriod, usagePeriodBounds } from './usage-period.js';

/** How much of its allowances a project has used. */
export interface UsageReport {
  /** The usage month (UTC): its first millisecond, and the first of the next month, when the count starts again. */
  readonly periodStart: number;
  readonly periodEnd: number;
  /** Requests counted against this month's allowance. */
  readonly used: number;
  /** The monthly request allowance. */
  readonly allowance: number;
  /** Requests the project may still create this month: never below 0, also when the allowance was lowered. */
  readonly remaining: number;
  /** Schedules the project has (active or paused). */
  readonly schedules: number;
  readonly scheduleAllowance: number;
}

/**
 * Reads a project's usage. Servers reserve the monthly allowance in blocks ahead of use (`AllowanceLeases`), so
 * storage counts a block as used as soon as it is reserved; `unusedReserve` gives back what this process reserved
 * but has not used, which makes the count exact where one process serves the project (the embedded backend).
 * Reserves other processes hold count as used until they use or return them.
 */
export class ProjectUsage {
  constructor(
    private readonly usage: UsageStore,
    private readonly clock: Clock,
    private readonly unusedReserve: (projectId: string, period: string) => number = () => 0,
  ) {}

  async of(project: Project): Promise<UsageReport> {
    const now = this.clock.now();
    const period = usagePeriod(now);
    const { start, end } = usagePeriodBounds(now);
    const [stored, schedules] = await Promise.all([this.usage.used(project.id, period), this.usage.used(project.id, SCHEDULE_COUNT_PERIOD)]);
    const used = Math.max(0, stored - this.unusedReserve(project.id, period));
    return {
      periodStart: start,
      periodEnd: end,
      used,
      allowance: project.monthlyAllowance,
      remaining: Math.max(0, project.monthlyAllowance - used),
      schedules,
      scheduleAllowance: project.scheduleAllowance,
    };
  }
}
