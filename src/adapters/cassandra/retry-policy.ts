import { policies, type types } from 'cassandra-driver';

/**
 * How long after its first batch log timeout a logged batch is still sent again. A coordinator writes the batch log
 * to two live nodes of its datacenter other than itself; with three nodes those are exactly the other two, so for
 * as long as it still believes a dead node alive (until its failure detector convicts it: 15–20 s after the last
 * heartbeat at the default `phi_convict_threshold` of 8, longer on a machine so busy that Cassandra suspends the
 * conviction) every coordinator's batch log write waits out `write_request_timeout` and fails. Once the node is
 * convicted the batch log goes to the one live other node, and the retry succeeds.
 */
export const BATCH_LOG_RETRY_MS = 40_000;

type Decision = policies.retry.DecisionInfo;
type OperationInfo = policies.retry.OperationInfo;

/**
 * The driver's default retry policy, except that a logged batch whose batch log write timed out is sent again, on the
 * same coordinator, until `BATCH_LOG_RETRY_MS` have passed since its first such timeout (the default tries once).
 *
 * Only statements marked idempotent reach `onWriteTimeout` (the driver rethrows for the others), and a batch log
 * timeout leaves nothing of the batch applied but possibly its log entry on one node, which that node replays later:
 * the batch may land once by the replay and once by the retry, which for an idempotent batch is the same as once.
 * The retry keeps the statement's own consistency level: the `consistency` of a batch log timeout is the batch log's
 * (TWO), never to be used for the batch itself.
 */
export class BatchLogRetryPolicy extends policies.retry.RetryPolicy {
  /** When each statement (its execution options, shared by its speculative executions) first timed out on its log. */
  private readonly firstTimeout = new WeakMap<object, number>();

  constructor(private readonly now: () => number) {
    super();
  }

  override onWriteTimeout(info: OperationInfo, consistency: types.consistencies, received: number, blockFor: number, writeType: string): Decision {
    if (writeType !== 'BATCH_LOG') return super.onWriteTimeout(info, consistency, received, blockFor, writeType);
    const now = this.now();
    const first = this.firstTimeout.get(info.executionOptions) ?? now;
    this.firstTimeout.set(info.executionOptions, first);
    if (now - first >= BATCH_LOG_RETRY_MS) return this.rethrowResult();
    // `undefined`: the statement's own consistency (the declared type asks for one; the driver takes none).
    return this.retryResult(undefined as unknown as types.consistencies, true);
  }
}
