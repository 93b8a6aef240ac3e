import { errors, types } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { isRefusedWhileShuttingDown, isUncertainConditionalWrite, toPortError } from '../../src/adapters/cassandra/errors.js';
import { StorageUnavailable } from '../../src/ports/errors.js';

/** The typings declare DriverError abstract; the driver itself creates plain ones. */
const DriverError = errors.DriverError as unknown as new (message: string) => errors.DriverError;

/** What the driver hands to every statement still waiting on a connection that closed. */
function socketClosed(): errors.DriverError {
  const err = new DriverError('Socket was closed') as errors.DriverError & { isSocketError: boolean };
  err.isSocketError = true;
  return err;
}

describe('Cassandra driver errors', () => {
  it('turns a connection that closed under a statement into StorageUnavailable, whose outcome is uncertain', () => {
    const converted = toPortError(socketClosed(), 'the insert');
    expect(converted).toBeInstanceOf(StorageUnavailable);
    expect(isUncertainConditionalWrite(converted)).toBe(true);
  });

  it('turns an unreachable cluster and a write timeout into StorageUnavailable', () => {
    expect(toPortError(new errors.NoHostAvailableError({}), 'x')).toBeInstanceOf(StorageUnavailable);
    const timeout = new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'timed out');
    expect(toPortError(timeout, 'x')).toBeInstanceOf(StorageUnavailable);
    expect(isUncertainConditionalWrite(toPortError(timeout, 'x'))).toBe(false);
    Object.assign(timeout, { writeType: 'CAS' });
    expect(isUncertainConditionalWrite(toPortError(timeout, 'x'))).toBe(true);
  });

  it('counts a statement the driver stopped waiting for (a frozen coordinator) as uncertain', () => {
    const converted = toPortError(new errors.OperationTimedOutError('The host 127.0.0.1:29042 did not reply before timeout 12000 ms'), 'x');
    expect(converted).toBeInstanceOf(StorageUnavailable);
    expect(isUncertainConditionalWrite(converted)).toBe(true);
  });

  it('turns a host left without connections into StorageUnavailable, not an internal error', () => {
    expect(toPortError(new Error('No connection available'), 'x')).toBeInstanceOf(StorageUnavailable);
  });

  it('tells a statement a node refused while shutting down (never started) from an overloaded node and other errors', () => {
    const refused = new errors.ResponseError(types.responseErrorCodes.overloaded, 'Server is shutting down');
    expect(isRefusedWhileShuttingDown(refused)).toBe(true);
    expect(isRefusedWhileShuttingDown(toPortError(refused, 'storing requests'))).toBe(true);
    expect(isRefusedWhileShuttingDown(new errors.ResponseError(types.responseErrorCodes.overloaded, 'Too many in flight'))).toBe(false);
    expect(isRefusedWhileShuttingDown(new errors.ResponseError(types.responseErrorCodes.serverError, 'Server is shutting down'))).toBe(false);
  });

  it('lets a mistake in a statement through unchanged', () => {
    const syntax = new errors.ResponseError(types.responseErrorCodes.syntaxError, 'line 1: no viable alternative');
    expect(toPortError(syntax, 'x')).toBe(syntax);
    const other = new DriverError('something else');
    expect(toPortError(other, 'x')).toBe(other);
  });
});
