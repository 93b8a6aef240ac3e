import { describe, expect, it } from 'vitest';
import { bulkFilterOf, handledOf, isEmptyFilter, progressText, skippedText, willText } from '../../src/console/bulk/bulk-words.js';

const none = { not_found: 0, ended: 0, active: 0, already_cancelled: 0, invalid_definition: 0 };

describe('the console bulk actions in words', () => {
  it('takes the list filter of the address as the action filter, without paging, with the fixed status on top', () => {
    const q = new URLSearchParams('queue=billing&response_status_code=503&cursor=abc&limit=20&status=queued&flow_key=');
    expect(bulkFilterOf(q, { status: 'failed' })).toEqual({ queue: 'billing', response_status_code: 503, status: 'failed' });
    expect(bulkFilterOf(new URLSearchParams('from=2026-11-25T09:00:00Z'))).toEqual({ from: '2026-11-25T09:00:00Z' });
    // A code that is no number goes as typed, for the API to refuse at its field rather than to count everything.
    expect(bulkFilterOf(new URLSearchParams('response_status_code=5xx')).response_status_code).toBe('5xx');
  });

  it('knows an empty filter, which the API refuses', () => {
    expect(isEmptyFilter(bulkFilterOf(new URLSearchParams('cursor=abc&limit=50')))).toBe(true);
    expect(isEmptyFilter({ status: 'failed' })).toBe(false);
  });

  it('says what will be done and how far it got', () => {
    expect(willText('replay', 40)).toBe('40 requests will be replayed');
    expect(willText('cancel', 1)).toBe('1 request will be cancelled');
    expect(willText('replay', 40_000)).toBe('40,000 requests will be replayed');
    expect(progressText({ action: 'replay', state: 'running', matched: 40, done: 12 })).toBe('Running: 12 of 40 requests replayed');
    expect(progressText({ action: 'cancel', state: 'cancelled', matched: 3, done: 1 })).toBe('Cancelled: 1 of 3 requests cancelled');
  });

  it('counts the requests left alone by reason, in words, and with the done ones as handled', () => {
    const skipped = { ...none, active: 2, not_found: 1 };
    expect(skippedText(skipped)).toBe('1 not found, 2 not ended yet');
    expect(skippedText(none)).toBe('');
    expect(skippedText({ ...none, already_cancelled: 3, ended: 1 })).toBe('1 already ended, 3 already cancelled');
    expect(handledOf({ done: 5, skipped })).toBe(8);
  });
});
