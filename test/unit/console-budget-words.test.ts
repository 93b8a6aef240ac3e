import { describe, expect, it } from 'vitest';
import {
  admittedText,
  concurrencyText,
  holdReasonText,
  inFlightText,
  isSlowed,
  kindText,
  numberText,
  rateText,
  startedText,
  waitingForText,
  waitingText,
  waitingTotal,
} from '../../src/console/flow/budget-words.js';

const rate = { limit: 10, period: '1s', burst: 10 };

describe('the limits of a queue or flow key in words', () => {
  it('says the rate as limit per period with its burst', () => {
    expect(rateText(rate)).toBe('10 per 1s, burst 10');
    expect(rateText({ limit: 1_000, period: '1h', burst: 50 })).toBe('1,000 per 1h, burst 50');
    expect(rateText(null)).toBe('no rate limit');
  });

  it('says the concurrency, or that there is none', () => {
    expect(concurrencyText(5)).toBe('5 at once');
    expect(concurrencyText(10_000)).toBe('10,000 at once');
    expect(concurrencyText(null)).toBe('no concurrency limit');
  });
});

describe('the live state in words', () => {
  it('counts attempts in flight against the concurrency limit when there is one', () => {
    expect(inFlightText({ in_flight: 2, concurrency: 5 })).toBe('2 of 5');
    expect(inFlightText({ in_flight: 7, concurrency: null })).toBe('7');
  });

  it('counts attempts started this period against the rate, and has nothing to say without a rate', () => {
    expect(startedText({ started_in_period: 3, rate })).toBe('3 of 10 per 1s');
    expect(startedText({ started_in_period: null, rate: null })).toBeNull();
  });

  it('names only the reasons that hold requests back, and says none when nothing waits', () => {
    expect(waitingText({ rate: 0, concurrency: 0, paused: 0 })).toBe('none');
    expect(waitingText({ rate: 3, concurrency: 0, paused: 2 })).toBe('3 for the rate, 2 for the pause');
    expect(waitingText({ rate: 1, concurrency: 1_200, paused: 0 })).toBe('1 for the rate, 1,200 for concurrency');
    expect(waitingTotal({ rate: 3, concurrency: 4, paused: 2 })).toBe(9);
  });

  it('marks an admitted rate below the limit as slowed by a destination, and only then', () => {
    expect(isSlowed({ rate, admitted_rate: 4 })).toBe(true);
    expect(admittedText({ rate, admitted_rate: 4 })).toBe('4 per 1s, slowed from 10 by a destination');
    expect(admittedText({ rate, admitted_rate: 7.5 })).toBe('7.5 per 1s, slowed from 10 by a destination');
    expect(isSlowed({ rate, admitted_rate: 10 })).toBe(false);
    expect(admittedText({ rate, admitted_rate: 10 })).toBe('10 per 1s (the limit)');
    expect(isSlowed({ rate: null, admitted_rate: null })).toBe(false);
    expect(admittedText({ rate: null, admitted_rate: null })).toBe('no rate limit');
  });

  it('shows at most two decimals', () => {
    expect(numberText(3.3333)).toBe('3.33');
    expect(numberText(0)).toBe('0');
  });
});

describe("a request's waiting_for in words", () => {
  it('names the budget and the reason', () => {
    expect(waitingForText({ kind: 'flow_key', name: 'k', reason: 'rate' })).toBe('waiting for flow key k: rate limit');
    expect(waitingForText({ kind: 'queue', name: 'default', reason: 'concurrency' })).toBe('waiting for queue default: concurrency limit');
    expect(waitingForText({ kind: 'flow_key', name: 'vendor:acme', reason: 'paused' })).toBe('waiting for flow key vendor:acme: paused');
    expect(kindText('queue')).toBe('queue');
    expect(holdReasonText('paused')).toBe('paused');
  });
});
