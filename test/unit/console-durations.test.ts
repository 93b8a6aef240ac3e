import { describe, expect, it } from 'vitest';
import { durationText } from '../../src/console/requests/durations.js';

describe('durationText', () => {
  it.each([
    [0, '0 ms'],
    [0.4, '0 ms'],
    [12.6, '13 ms'],
    [800, '800 ms'],
    [999.4, '999 ms'],
    // Where rounding would reach the next unit, the next unit is used.
    [999.5, '1 s'],
    [1_000, '1 s'],
    [1_040, '1 s'],
    [1_500, '1.5 s'],
    [9_940, '9.9 s'],
    [9_960, '10 s'],
    [10_000, '10 s'],
    [10_400, '10 s'],
    [45_500, '46 s'],
    [59_499, '59 s'],
    [59_500, '1 min'],
    [60_000, '1 min'],
    [200_000, '3 min 20 s'],
    [3_599_499, '59 min 59 s'],
    [3_599_500, '1 h'],
    [3_600_000, '1 h'],
    [7_500_000, '2 h 5 min'],
    [86_369_499, '23 h 59 min'],
    [86_369_500, '1 d'],
    [90_000_000, '1 d 1 h'],
    [259_200_000, '3 d'],
    [30 * 86_400_000, '30 d'],
  ])('%s ms → %s', (ms, text) => {
    expect(durationText(ms)).toBe(text);
  });

  it('shows what it cannot read as milliseconds as given', () => {
    expect(durationText(-5)).toBe('-5 ms');
    expect(durationText(Number.NaN)).toBe('NaN ms');
    expect(durationText(Number.POSITIVE_INFINITY)).toBe('Infinity ms');
  });
});
