import { FerryError } from '../../domain/errors.js';
import { StorageUnavailable } from '../../ports/errors.js';
import type { Answer, SharedStage } from './unary-call.js';

/**
 * Every protocol reports failures from the one catalogue: anything that is not already a FerryError becomes
 * STORAGE_UNAVAILABLE (nothing was durably applied) or INTERNAL.
 */
export function toFerryError(err: unknown): FerryError {
  if (err instanceof FerryError) return err;
  if (err instanceof StorageUnavailable) {
    return new FerryError('STORAGE_UNAVAILABLE', 'The operation could not be durably applied; retry later.');
  }
  return new FerryError('INTERNAL', 'An unexpected error occurred.');
}

/**
 * A failed call as the errors stage hands it to the protocol's answer: what was thrown, and the catalogue error
 * every protocol answers it with. Not an Error: it is made on every refusal, and a stack trace would be wasted.
 */
export class CallFailure {
  private constructor(
    readonly thrown: unknown,
    readonly ferry: FerryError,
  ) {}

  static of(thrown: unknown): CallFailure {
    return thrown instanceof CallFailure ? thrown : new CallFailure(thrown, toFerryError(thrown));
  }

  /** The failure as answered with its catalogue error, for the observer. */
  get answer(): Answer {
    return { status: this.ferry.status, code: this.ferry.code, field: this.ferry.field, thrown: this.thrown };
  }
}

/** The errors stage: whatever the stages within throw reaches the answer as a CallFailure. */
export const errorStage: SharedStage = (next) => async (call) => {
  try {
    return await next(call);
  } catch (err) {
    throw CallFailure.of(err);
  }
};

/** A refusal the edge made before the call reached its service: nothing was thrown behind it. */
export function refusalAnswer(refusal: FerryError, field: string | undefined = refusal.field): Answer {
  return { status: refusal.status, code: refusal.code, field, thrown: undefined };
}

const SUCCEEDED = new Map<number, Answer>();

/** A success with this status; the few there are made once. */
export function succeeded(status: number): Answer {
  let answer = SUCCEEDED.get(status);
  if (answer === undefined) SUCCEEDED.set(status, (answer = { status, code: undefined, field: undefined, thrown: undefined }));
  return answer;
}
