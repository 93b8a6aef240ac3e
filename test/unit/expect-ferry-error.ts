import { expect } from 'vitest';
import { type ErrorCode, FerryError } from '../../src/domain/errors.js';

/** Runs `fn` and asserts it throws a FerryError with this code and, when given, this field. */
export function expectFerryError(fn: () => unknown, code: ErrorCode, field?: string): FerryError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected a FerryError to be thrown').toBeInstanceOf(FerryError);
  const err = caught as FerryError;
  expect(err.code).toBe(code);
  if (field !== undefined) expect(err.field).toBe(field);
  expect(err.message.length).toBeGreaterThan(0);
  return err;
}
