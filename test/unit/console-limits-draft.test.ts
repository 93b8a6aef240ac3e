import { describe, expect, it } from 'vitest';
import { draftOf, limitsOf, type LimitsDraft } from '../../src/console/flow/limits-draft.js';

const EMPTY: LimitsDraft = { limit: '', period: '', burst: '', concurrency: '', adaptive: true };
const draft = (fields: Partial<LimitsDraft>): LimitsDraft => ({ ...EMPTY, ...fields });

describe('the limits form', () => {
  it('fills with the limits in force, so saving it unchanged keeps them', () => {
    const budget = { rate: { limit: 10, period: '1s', burst: 20 }, concurrency: 5, adaptive: false };
    const filled = draftOf(budget);
    expect(filled).toEqual({ limit: '10', period: '1s', burst: '20', concurrency: '5', adaptive: false });
    expect(limitsOf(filled)).toEqual({ ok: true, limits: { rate: { limit: 10, period: '1s', burst: 20 }, concurrency: 5, adaptive: false } });
    expect(draftOf({ rate: null, concurrency: null, adaptive: true })).toEqual(EMPTY);
  });

  it('sends no rate and no concurrency when their fields are empty: PUT replaces the whole configuration', () => {
    expect(limitsOf(EMPTY)).toEqual({ ok: true, limits: { adaptive: true } });
    expect(limitsOf(draft({ limit: '  ', period: ' ', adaptive: false }))).toEqual({ ok: true, limits: { adaptive: false } });
  });

  it('leaves the burst out when empty, for the API to take the limit', () => {
    expect(limitsOf(draft({ limit: ' 5 ', period: ' 1m ' }))).toEqual({ ok: true, limits: { rate: { limit: 5, period: '1m' }, adaptive: true } });
  });

  it('sends an incomplete rate for the API to name the missing member', () => {
    expect(limitsOf(draft({ period: '1s' }))).toEqual({ ok: true, limits: { rate: { period: '1s' }, adaptive: true } });
    expect(limitsOf(draft({ burst: '3' }))).toEqual({ ok: true, limits: { rate: { burst: 3 }, adaptive: true } });
  });

  it("leaves ranges and whole numbers to the API's 422", () => {
    expect(limitsOf(draft({ limit: '0', period: '2h', burst: '0', concurrency: '10001' }))).toEqual({
      ok: true,
      limits: { rate: { limit: 0, period: '2h', burst: 0 }, concurrency: 10_001, adaptive: true },
    });
    expect(limitsOf(draft({ concurrency: '1.5' }))).toEqual({ ok: true, limits: { concurrency: 1.5, adaptive: true } });
  });

  it('refuses text that is not a number at all, at its field', () => {
    expect(limitsOf(draft({ limit: 'ten', period: '1s' }))).toEqual({ ok: false, field: 'rate.limit', message: 'The rate limit must be a number, or empty for no such limit.' });
    expect(limitsOf(draft({ limit: '10', period: '1s', burst: 'lots' }))).toMatchObject({ ok: false, field: 'rate.burst' });
    expect(limitsOf(draft({ concurrency: 'five' }))).toMatchObject({ ok: false, field: 'concurrency' });
  });
});
