/**
 * Why a delivery failed verification. Every failure is one of the subclasses below, so a receiver can answer 400
 * for any `WebhookVerificationError` and still log which check refused the request.
 */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A header Ferry sends with every delivery was absent; `header` names it. */
export class MissingHeaderError extends WebhookVerificationError {
  constructor(readonly header: string) {
    super(`The ${header} header is missing; every Ferry delivery carries it.`);
  }
}

/**
 * A header was present but not in Ferry's format (a timestamp that is not whole seconds, a signature list without a
 * `v1,` signature), or a configured secret is not a `whsec_` secret; `header` names the header, or is null for a
 * secret.
 */
export class InvalidHeaderError extends WebhookVerificationError {
  constructor(
    readonly header: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** The signed timestamp is older than the tolerance: possibly a captured delivery sent again. */
export class StaleTimestampError extends WebhookVerificationError {
  constructor(
    readonly timestamp: Date,
    readonly toleranceSeconds: number,
  ) {
    super(`The delivery was signed at ${timestamp.toISOString()}, more than ${toleranceSeconds} s ago.`);
  }
}

/** The signed timestamp is further ahead than the tolerance: a clock is wrong, or the timestamp was altered. */
export class FutureTimestampError extends WebhookVerificationError {
  constructor(
    readonly timestamp: Date,
    readonly toleranceSeconds: number,
  ) {
    super(`The delivery claims to be signed at ${timestamp.toISOString()}, more than ${toleranceSeconds} s from now.`);
  }
}

/** No signature matched any secret: the body, id or timestamp was altered, or the secret is not the project's. */
export class NoMatchingSignatureError extends WebhookVerificationError {
  constructor() {
    super('No signature in Service-Signature matches the body with any of the given secrets.');
  }
}
