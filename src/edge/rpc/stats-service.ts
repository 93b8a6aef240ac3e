import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Authenticator } from '../../app/authenticate.js';
import type { StatsQueries } from '../../app/stats-queries.js';
import type { StatCounts } from '../../domain/stats.js';
import { GetStatsResponseSchema, type StatsService } from '../../gen/ferry/v1/stats_service_pb.js';
import { callerProject } from './caller-project.js';
import { ts } from './to-proto.js';

export interface StatsServiceDeps {
  readonly auth: Authenticator;
  readonly stats: StatsQueries;
}

/** The project's overview, for every protocol (the JSON gateway calls the same function). */
export function statsServiceImpl(deps: StatsServiceDeps): ServiceImpl<typeof StatsService> {
  return {
    async getStats(_req, ctx) {
      const s = await deps.stats.of(await callerProject(deps.auth, ctx));
      return create(GetStatsResponseSchema, {
        stats: {
          asOf: ts(s.asOf),
          from: ts(s.from),
          minutes: s.minutes.map((m) => ({ minute: ts(m.minute), ...counts(m.counts) })),
          totals: counts(s.totals),
          ...(s.failureRate === null ? {} : { failureRate: s.failureRate }),
          backlog: s.backlog.map((q) => ({
            queue: q.queue,
            ...(q.queued === null ? {} : { queued: BigInt(q.queued) }),
            ...(q.scheduled === null ? {} : { scheduled: BigInt(q.scheduled) }),
            delivering: BigInt(q.delivering),
            held: BigInt(q.held),
            paused: q.paused,
            oldestDueAt: ts(q.oldestDueAt),
          })),
          backlogCounted: s.backlogCounted,
          backlogTruncated: s.backlogTruncated,
        },
      });
    },
  };
}

function counts(c: StatCounts): { accepted: bigint; delivered: bigint; failed: bigint; retried: bigint; callbacks: bigint } {
  return { accepted: BigInt(c.accepted), delivered: BigInt(c.delivered), failed: BigInt(c.failed), retried: BigInt(c.retried), callbacks: BigInt(c.callbacks) };
}
