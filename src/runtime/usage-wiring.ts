import type { AllowanceLeases } from '../app/allowance-leases.js';
import { ProjectUsage } from '../app/project-usage.js';
import type { ServiceTelemetry } from '../adapters/telemetry/service-telemetry.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { StoredRequest } from '../domain/request.js';
import type { Backend } from '../ports/backend.js';

/** Usage as storage holds it, for the `ferry` command: it counts blocks running servers reserved ahead as used. */
export function projectUsage(backend: Backend, clock: Clock = systemClock): ProjectUsage {
  return new ProjectUsage(backend.usage, clock);
}

/**
 * Usage as a server answers it (`GET /usage`, the per-project gauges): storage's count less what this process
 * reserved and has not used. With it, what to call with each accept's requests, so the gauges follow the projects
 * that accept work here.
 */
export function servedUsage(
  backend: Backend,
  leases: AllowanceLeases,
  telemetry: ServiceTelemetry,
  clock: Clock,
): { readonly usage: ProjectUsage; readonly noteAccepted: (stored: readonly StoredRequest[]) => void } {
  const usage = new ProjectUsage(backend.usage, clock, (projectId, period) => leases.unused(projectId, period));
  const noteActive = telemetry.watchProjectUsage(async (projectId) => {
    const project = await backend.projects.getProject(projectId);
    return project === null ? null : usage.of(project);
  });
  return {
    usage,
    // One accept call is one project's.
    noteAccepted: (stored) => {
      if (stored[0] !== undefined) noteActive(stored[0].projectId);
    },
  };
}
