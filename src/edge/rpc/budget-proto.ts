import { create } from '@bufbuild/protobuf';
import type { BudgetView } from '../../app/budget-queries.js';
import { formatDuration, type BudgetLimitsInput } from '../../domain/validation/index.js';
import { BudgetSchema, type Budget, type RateLimit } from '../../gen/ferry/v1/budgets_pb.js';
import { ts } from './to-proto.js';

/** The limits a set call gives, as validation reads them: an absent message or field is no such limit. */
export function budgetLimitsInputOf(m: { rate?: RateLimit; concurrency?: number; adaptive?: boolean }): BudgetLimitsInput {
  return {
    rate: m.rate === undefined ? undefined : { limit: m.rate.limit, period: m.rate.period, burst: m.rate.burst },
    concurrency: m.concurrency,
    adaptive: m.adaptive,
  };
}

export function budgetToProto(b: BudgetView): Budget {
  const { rate, concurrency, adaptive } = b.limits;
  const { state } = b;
  return create(BudgetSchema, {
    name: b.name,
    rate: rate === null ? undefined : { limit: rate.limit, period: formatDuration(rate.periodMs), burst: rate.burst },
    concurrency: concurrency ?? undefined,
    adaptive,
    paused: b.paused,
    inFlight: state.inFlight,
    startedInPeriod: state.startedInPeriod ?? undefined,
    waiting: { rate: state.waiting.rate, concurrency: state.waiting.concurrency, paused: state.waiting.paused },
    admittedRate: state.admittedRate ?? undefined,
    updatedAt: ts(b.updatedAt),
  });
}
