import { describeAcceptResumeContract } from './accept-resume.js';
import { describeBudgetStoreContract } from './budgets.js';
import { describeDurabilityContract } from './durability.js';
import type { BackendFactory, ReopenableStorage } from './harness.js';
import { describeIdempotencyStoreContract } from './idempotency.js';
import { describeProjectStoreContract } from './projects.js';
import { describeReadinessContract } from './readiness.js';
import { describeRequestCancelContract } from './request-cancels.js';
import { describeRequestChangeContract } from './request-changes.js';
import { describeRequestClaimContract } from './request-claims.js';
import { describeRequestFlowContract } from './request-flow.js';
import { describeRequestListContract } from './request-list.js';
import { describeRequestStoreContract } from './requests.js';
import { describeRequestWakeContract } from './request-wakes.js';
import { describeScheduleStoreContract } from './schedules.js';
import { describeSecretStoreContract } from './secrets.js';
import { describeUsageStoreContract } from './usage.js';

/**
 * Every port contract, for one backend: each backend runs this one list, so a new suite reaches all of them. It comes
 * in two parts of about equal time, the requests' contracts and the other stores', which each backend runs from two
 * files (`<backend>.test.ts`, `<backend>-stores.test.ts`): side by side, not one long file at the end of the suite.
 */
export function describeBackendContracts(makeBackend: BackendFactory, makeStorage: () => Promise<ReopenableStorage>, part: 'requests' | 'stores'): void {
  if (part === 'requests') {
    describeRequestStoreContract(makeBackend);
    describeRequestListContract(makeBackend);
    describeClaimContracts(makeBackend);
    return;
  }
  describeScheduleStoreContract(makeBackend);
  describeIdempotencyStoreContract(makeBackend);
  describeAcceptResumeContract(makeBackend);
  describeUsageStoreContract(makeBackend);
  describeProjectStoreContract(makeBackend);
  describeSecretStoreContract(makeBackend);
  describeBudgetStoreContract(makeBackend);
  describeDurabilityContract(makeStorage);
  describeReadinessContract(makeBackend);
}

/**
 * The contracts of claiming and of the changes made through claims: where a backend can keep claims in the claiming
 * process or store them at once, it runs these both ways.
 */
export function describeClaimContracts(makeBackend: BackendFactory): void {
  describeRequestClaimContract(makeBackend);
  describeRequestChangeContract(makeBackend);
  describeRequestCancelContract(makeBackend);
  describeRequestFlowContract(makeBackend);
  describeRequestWakeContract(makeBackend);
}
