import { policies, types } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { BATCH_LOG_RETRY_MS, BatchLogRetryPolicy } from '../../src/adapters/cassandra/retry-policy.js';

/** The driver's decisions, as its own policy makes them: retry (here, on the same coordinator) and rethrow. */
const base = new policies.retry.RetryPolicy();
const retry = base.retryResult(undefined as unknown as types.consistencies, true).decision;
const rethrow = base.rethrowResult().decision;
const TWO = types.consistencies.two;

/** A statement as the driver describes it to the policy: one object per statement, shared by its executions. */
function statement(nbRetry = 0): policies.retry.OperationInfo {
  return { query: 'BEGIN BATCH ... APPLY BATCH', executionOptions: {} as policies.retry.OperationInfo['executionOptions'], nbRetry };
}

describe('the retry policy of the Cassandra session', () => {
  it('sends a logged batch whose batch log write timed out again, on the same coordinator, at its own consistency', () => {
    let now = 1_000;
    const policy = new BatchLogRetryPolicy(() => now);
    const info = statement();
    for (let attempt = 0; now - 1_000 < BATCH_LOG_RETRY_MS; attempt++, now += 5_000) {
      const decision = policy.onWriteTimeout({ ...info, nbRetry: attempt }, TWO, 1, 2, 'BATCH_LOG');
      expect(decision).toEqual({ decision: retry, consistency: undefined, useCurrentHost: true });
      expect(decision.decision).not.toBe(rethrow);
    }
  });

  it('gives up once the window since its first batch log timeout has passed', () => {
    let now = 1_000;
    const policy = new BatchLogRetryPolicy(() => now);
    const info = statement();
    expect(policy.onWriteTimeout(info, TWO, 1, 2, 'BATCH_LOG').decision).toBe(retry);
    now += BATCH_LOG_RETRY_MS;
    expect(policy.onWriteTimeout({ ...info, nbRetry: 1 }, TWO, 1, 2, 'BATCH_LOG').decision).toBe(rethrow);
    // Another statement has its own window.
    expect(policy.onWriteTimeout(statement(), TWO, 1, 2, 'BATCH_LOG').decision).toBe(retry);
  });

  it('leaves every other write timeout to the driver\'s default: rethrown', () => {
    const policy = new BatchLogRetryPolicy(() => 0);
    for (const writeType of ['SIMPLE', 'BATCH', 'UNLOGGED_BATCH', 'CAS', 'COUNTER']) {
      expect(policy.onWriteTimeout(statement(), types.consistencies.localQuorum, 1, 2, writeType).decision).toBe(rethrow);
    }
  });
});
