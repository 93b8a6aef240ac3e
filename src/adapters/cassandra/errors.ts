import { errors, types } from 'cassandra-driver';
import { StorageUnavailable } from '../../ports/errors.js';
import { VersionConflict } from '../../ports/requests.js';

const codes = types.responseErrorCodes;

/** Server answers that mean the cluster could not apply the operation now; a retry later may succeed. */
const UNAVAILABLE_RESPONSES: ReadonlySet<number> = new Set([
  codes.unavailableException,
  codes.overloaded,
  codes.isBootstrapping,
  codes.truncateError,
  codes.writeTimeout,
  codes.readTimeout,
  codes.readFailure,
  codes.writeFailure,
  codes.serverError,
]);

/**
 * The one place where driver errors become port errors. Anything that says the cluster is unreachable, slow or
 * short of replicas becomes `StorageUnavailable` (the API answers 503); a mistake in a statement passes through
 * unchanged, so it fails loudly instead of looking like an outage.
 */
export function toPortError(err: unknown, during: string): unknown {
  if (err instanceof StorageUnavailable || err instanceof VersionConflict) return err;
  if (
    err instanceof errors.NoHostAvailableError ||
    err instanceof errors.OperationTimedOutError ||
    err instanceof errors.BusyConnectionError ||
    isSocketError(err) ||
    (err instanceof errors.ResponseError && UNAVAILABLE_RESPONSES.has(err.code))
  ) {
    return new StorageUnavailable(`Cassandra could not complete ${during}: ${err.message}`, { cause: err });
  }
  // A host whose pool lost its last connection (it went down under the statement): a plain Error from the driver.
  if (err instanceof Error && err.message === 'No connection available') {
    return new StorageUnavailable(`Cassandra had no connection for ${during}.`, { cause: err });
  }
  // The driver reports use of a shut-down client this way.
  if (err instanceof Error && /shutdown|has been shut down/i.test(err.message)) {
    return new StorageUnavailable(`Cassandra connection closed during ${during}.`, { cause: err });
  }
  return err;
}

/**
 * True when a conditional write may or may not have been applied: it timed out in its Paxos phase, the connection
 * closed while it was under way, or the driver stopped waiting for the coordinator (a node that froze holds its
 * connections open and answers nothing). A serial read settles which (it completes any round still in progress).
 */
export function isUncertainConditionalWrite(err: unknown): boolean {
  if (!(err instanceof StorageUnavailable)) return false;
  const cause = err.cause;
  if (isSocketError(cause) || cause instanceof errors.OperationTimedOutError) return true;
  return (
    cause instanceof errors.ResponseError &&
    cause.code === codes.writeTimeout &&
    (cause as errors.ResponseError & { writeType?: string }).writeType === 'CAS'
  );
}

/**
 * The node refused the statement before starting it, because it is shutting down (a clean stop, a rolling restart):
 * Cassandra answers `Overloaded` "Server is shutting down" at dispatch. Nothing of it ran, so any statement,
 * conditional writes included, may go to another node.
 */
export function isRefusedWhileShuttingDown(err: unknown): boolean {
  const cause = err instanceof StorageUnavailable ? err.cause : err;
  return cause instanceof errors.ResponseError && cause.code === codes.overloaded && /shutting down/i.test(cause.message);
}

/**
 * The connection to the node closed while the statement was under way (the node stopped or restarted). The driver
 * retries only idempotent statements itself; for the others this reaches us, and the write may have landed.
 */
function isSocketError(err: unknown): err is errors.DriverError {
  return err instanceof errors.DriverError && (err as errors.DriverError & { isSocketError?: boolean }).isSocketError === true;
}
