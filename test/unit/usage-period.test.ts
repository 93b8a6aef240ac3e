import { describe, expect, it } from 'vitest';
import { secondsUntilNextPeriod, usagePeriod } from '../../src/app/usage-period.js';

describe('allowance periods', () => {
  it('are UTC calendar months', () => {
    expect(usagePeriod(Date.UTC(2027, 0, 31, 23, 59, 59, 999))).toBe('2027-01');
    expect(usagePeriod(Date.UTC(2027, 1, 1))).toBe('2027-02');
  });

  it('tell a refused call how many seconds remain until the next month, rounded up', () => {
    expect(secondsUntilNextPeriod(Date.UTC(2027, 0, 31, 23, 59, 0))).toBe(60);
    expect(secondsUntilNextPeriod(Date.UTC(2027, 0, 31, 23, 59, 59, 1))).toBe(1);
    expect(secondsUntilNextPeriod(Date.UTC(2027, 11, 31, 0, 0, 0))).toBe(86_400);
    // February of a leap year: 29 days from its first moment.
    expect(secondsUntilNextPeriod(Date.UTC(2028, 1, 1))).toBe(29 * 86_400);
  });
});
