// The allowance period's rules live in the domain: the storage that counts a callback in its month needs them too.
export { secondsUntilNextPeriod, usagePeriod, usagePeriodBounds } from '../domain/usage-period.js';
