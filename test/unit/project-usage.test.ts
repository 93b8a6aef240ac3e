import { describe, expect, it } from 'vitest';
import { ProjectUsageGauges, MAX_GAUGED_PROJECTS } from '../../src/adapters/telemetry/project-usage-gauges.js';
import { PrometheusMetrics } from '../../src/adapters/telemetry/prometheus-metrics.js';
import { AllowanceLeases } from '../../src/app/allowance-leases.js';
import { ProjectUsage } from '../../src/app/project-usage.js';
import { SCHEDULE_COUNT_PERIOD } from '../../src/app/schedule-commands.js';
import { usagePeriodBounds } from '../../src/app/usage-period.js';
import type { Project } from '../../src/domain/project.js';
import type { UsageStore } from '../../src/ports/usage.js';
import { FakeClock } from '../support/fake-clock.js';
import { sampleOf } from '../support/metrics.js';

/** Usage held in a map, with no limit checks of its own beyond the port's. */
function memoryUsage(): UsageStore & { counts: Map<string, number> } {
  const counts = new Map<string, number>();
  const key = (p: string, period: string) => `${p}/${period}`;
  return {
    counts,
    async reserve(p, period, count, limit) {
      const used = counts.get(key(p, period)) ?? 0;
      if (used + count > limit) return false;
      counts.set(key(p, period), used + count);
      return true;
    },
    async release(p, period, count) {
      counts.set(key(p, period), Math.max(0, (counts.get(key(p, period)) ?? 0) - count));
    },
    async used(p, period) {
      return counts.get(key(p, period)) ?? 0;
    },
  };
}

const project = (monthlyAllowance: number): Project => ({ id: 'prj_u', name: 'u', monthlyAllowance, scheduleAllowance: 5, retentionDays: 30, captureResponseBodies: true, createdAt: 0 });

describe('usage periods', () => {
  it.each([
    [Date.UTC(2030, 0, 1), Date.UTC(2030, 0, 1), Date.UTC(2030, 1, 1)],
    [Date.UTC(2030, 11, 31, 23, 59, 59, 999), Date.UTC(2030, 11, 1), Date.UTC(2031, 0, 1)],
    [Date.UTC(2028, 1, 29, 12), Date.UTC(2028, 1, 1), Date.UTC(2028, 2, 1)],
  ])('%d falls in the UTC month from %d to %d', (at, start, end) => {
    expect(usagePeriodBounds(at)).toEqual({ start, end });
  });
});

describe('project usage', () => {
  it('counts what was taken, not what this process reserved ahead, and the schedules', async () => {
    const clock = new FakeClock(Date.UTC(2030, 4, 20, 10));
    const usage = memoryUsage();
    const leases = new AllowanceLeases(usage, 64);
    expect(await leases.take('prj_u', '2030-05', 3, 1_000)).toBe(true);
    expect(await usage.used('prj_u', '2030-05')).toBe(64);
    await usage.reserve('prj_u', SCHEDULE_COUNT_PERIOD, 2, 5);

    const report = await new ProjectUsage(usage, clock, (p, period) => leases.unused(p, period)).of(project(1_000));
    expect(report).toEqual({
      periodStart: Date.UTC(2030, 4, 1),
      periodEnd: Date.UTC(2030, 5, 1),
      used: 3,
      allowance: 1_000,
      remaining: 997,
      schedules: 2,
      scheduleAllowance: 5,
    });
    // Read from storage alone (the `ferry` command), the reserve counts as used.
    expect((await new ProjectUsage(usage, clock).of(project(1_000))).used).toBe(64);
  });

  it('never reports less than nothing remaining, when the allowance was lowered below what was used', async () => {
    const usage = memoryUsage();
    await usage.reserve('prj_u', '2030-05', 40, 100);
    const report = await new ProjectUsage(usage, new FakeClock(Date.UTC(2030, 4, 2))).of(project(10));
    expect(report).toMatchObject({ used: 40, allowance: 10, remaining: 0 });
  });
});

describe('per-project allowance gauges', () => {
  it('show the projects that accepted work, at most the bound, the least recently active dropped', async () => {
    const metrics = new PrometheusMetrics({ defaultMetrics: false });
    const clock = new FakeClock(0);
    const reads: string[] = [];
    const gauges = new ProjectUsageGauges(
      metrics,
      async (projectId) => {
        reads.push(projectId);
        return projectId === 'prj_gone' ? null : { used: Number(projectId.slice(4)), allowance: 5_000 };
      },
      clock,
    );
    for (let n = 0; n <= MAX_GAUGED_PROJECTS; n++) gauges.note(`prj_${n}`);
    gauges.note('prj_1');
    gauges.note('prj_gone');
    const text = await metrics.scrape();
    // prj_0 and prj_2 were the least recently active when prj_1 and prj_gone came.
    expect(text).not.toContain('project_id="prj_0"');
    expect(text).not.toContain('project_id="prj_2"');
    expect(text).not.toContain('prj_gone"');
    expect(sampleOf(text, 'ferry_project_allowance_used', { project_id: 'prj_1' })).toBe(1);
    expect(sampleOf(text, 'ferry_project_allowance_used', { project_id: `prj_${MAX_GAUGED_PROJECTS}` })).toBe(MAX_GAUGED_PROJECTS);
    expect(sampleOf(text, 'ferry_project_allowance', { project_id: 'prj_1' })).toBe(5_000);
    expect(text.split('\n').filter((l) => l.startsWith('ferry_project_allowance_used{'))).toHaveLength(MAX_GAUGED_PROJECTS - 1);
    expect(reads).toHaveLength(MAX_GAUGED_PROJECTS);

    // Both gauges of a scrape, and scrapes within the reading's age, share one read of each project.
    await metrics.scrape();
    expect(reads).toHaveLength(MAX_GAUGED_PROJECTS);
    clock.advance(10_000);
    await metrics.scrape();
    expect(reads).toHaveLength(2 * MAX_GAUGED_PROJECTS);
    // A project new to the gauges is read at the next scrape, without waiting for the reading to age.
    gauges.note('prj_7777');
    gauges.note('prj_1');
    const next = await metrics.scrape();
    expect(reads).toHaveLength(3 * MAX_GAUGED_PROJECTS);
    expect(sampleOf(next, 'ferry_project_allowance', { project_id: 'prj_7777' })).toBe(5_000);
  });
});
