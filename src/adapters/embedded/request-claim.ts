import type { StoredRequest } from '../../domain/request.js';
import type { Claim } from '../../ports/requests.js';

/**
 * A claim of the embedded store: the request as claimed, whose version is all a change needs, since one process
 * delivers and every change checks the stored version in its transaction.
 */
export class EmbeddedClaim implements Claim {
  constructor(readonly request: StoredRequest) {}

  /**
   * The change writes only the request's state: the body and headers already sent go. The flow keys stay: the
   * deliverer still answers to their budgets until the attempt is settled. A request with callbacks keeps its
   * metadata, which the callback of its ending reports.
   */
  sent(): Claim {
    const metadata = this.request.callbacks === null ? {} : this.request.metadata;
    return new EmbeddedClaim({ ...this.request, body: null, headers: [], metadata });
  }

  /** `claim` as one of this store's; anything else is a mistake of the caller's. */
  static of(claim: Claim): EmbeddedClaim {
    if (!(claim instanceof EmbeddedClaim)) throw new TypeError('The claim was not made by the embedded request store.');
    return claim;
  }
}
