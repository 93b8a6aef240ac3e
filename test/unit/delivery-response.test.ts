import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_CONFIG, decideAttempt, type AttemptInput } from '../../src/domain/delivery/policy.js';
import { bodyExcerpt, bodyText, capturedResponse, receiverStopped } from '../../src/domain/delivery/response.js';
import type { AttemptOutcome } from '../../src/domain/delivery/outcome.js';

const decide = (outcome: AttemptOutcome, attemptNumber = 1, maxAttempts = 3) =>
  decideAttempt({ outcome, attemptNumber, maxAttempts, completedAt: 1_000, config: DEFAULT_RETRY_CONFIG, random: () => 0.5 } satisfies AttemptInput);
const answer = (status: number, headers: Array<[string, string]> = []): AttemptOutcome => ({ kind: 'response', status, retryAfter: null, headers });

describe('the receiver stop signal', () => {
  it('makes a retryable failure final, on any attempt, and wins over the budget', () => {
    for (const headers of [[['service-no-retry', ' True ']], [['webhook-delivery', 'abort-message']]] as Array<Array<[string, string]>>) {
      expect(decide(answer(500, headers))).toMatchObject({ requestStatus: 'failed', retry: null, finalReason: 'receiver_stopped' });
      expect(decide(answer(429, headers), 3, 3)).toMatchObject({ finalReason: 'receiver_stopped' });
    }
    expect(receiverStopped([['service-no-retry', 'false']])).toBe(false);
    expect(receiverStopped([['webhook-delivery', 'deliver']])).toBe(false);
  });

  it('leaves a success a success and a final status final_status', () => {
    expect(decide(answer(200, [['service-no-retry', 'true']]))).toMatchObject({ requestStatus: 'succeeded', finalReason: null });
    expect(decide(answer(404, [['service-no-retry', 'true']]))).toMatchObject({ requestStatus: 'failed', finalReason: 'final_status' });
  });

  it('names the other ways an attempt ends its request, and none while a retry follows', () => {
    expect(decide(answer(503))).toMatchObject({ requestStatus: 'queued', finalReason: null });
    expect(decide(answer(503), 3, 3)).toMatchObject({ requestStatus: 'failed', finalReason: 'attempts_exhausted' });
    expect(decide({ kind: 'blocked', message: 'no' })).toMatchObject({ finalReason: 'final_status', response: null });
    expect(decide({ kind: 'timeout', phase: 'total' }, 1, 1)).toMatchObject({ finalReason: 'attempts_exhausted', response: null });
  });
});

describe('the captured response', () => {
  it('keeps only the listed headers, escaped and cut', () => {
    const kept = capturedResponse({
      headers: [['content-type', 'text/plain'], ['set-cookie', 's=1'], ['ratelimit-reset', '5'], ['x-ratelimit-remaining', '0'], ['x-request-id', `a\u0001${'z'.repeat(300)}`], ['service-no-retry', 'true']],
    });
    expect(kept.headers.map(([n]) => n)).toEqual(['content-type', 'ratelimit-reset', 'x-ratelimit-remaining', 'x-request-id']);
    expect(kept.headers[3]![1]).toMatch(/^a\\x01z+$/);
    expect(kept.headers[3]![1]).toHaveLength(256);
    expect(kept).toMatchObject({ body: null, bodyTruncated: false });
  });

  it('cuts a body at 2 KiB without splitting a character, and writes non-UTF-8 bytes as base64', () => {
    const text = Buffer.from(`${'a'.repeat(2046)}€`); // € is 3 bytes: 2046..2048, cut after its second
    const cut = bodyExcerpt(text.subarray(0, 2048), true);
    expect(bodyText(cut)).toEqual({ text: 'a'.repeat(2046), encoding: 'utf8' });
    const binary = Buffer.alloc(2048, 0xff);
    expect(bodyExcerpt(binary, true)).toHaveLength(2048);
    expect(bodyText(new Uint8Array([0x68, 0xc3]))).toEqual({ text: Buffer.from([0x68, 0xc3]).toString('base64'), encoding: 'base64' });
    expect(bodyText(new Uint8Array())).toEqual({ text: '', encoding: 'utf8' });
    // Whole bodies are not trimmed: a body that ends mid-character is not valid UTF-8.
    expect(bodyExcerpt(new Uint8Array([0x68, 0xc3]), false)).toHaveLength(2);
    expect(capturedResponse({ bodyStart: Buffer.from('x'.repeat(3000)) })).toMatchObject({ bodyTruncated: true });
    expect(capturedResponse({ bodyStart: Buffer.from('x'.repeat(3000)) }).body).toHaveLength(2048);
  });
});
