import { describe, expect, it } from 'vitest';
import type { Attempt } from '../../sdk/src/types.js';
import { EXCERPT_CHARS, excerptOf, lastAnswerOf, lastAttemptOf } from '../../src/console/failures/last-answer.js';

function attempt(over: Partial<Attempt>): Attempt {
  return {
    attempt_number: 1,
    status: 'failed',
    response_status_code: 500,
    error_message: null,
    duration_ms: 12,
    started_at: '2026-11-25T09:00:00Z',
    completed_at: '2026-11-25T09:00:01Z',
    retry: null,
    final_reason: 'attempts_exhausted',
    response: { headers: {}, body: '{"error": "down"}', body_encoding: 'utf8', body_truncated: false },
    ...over,
  };
}

describe('a failed request last answer, as the failures view shows it', () => {
  it('says why Ferry stopped in the words of the request page', () => {
    expect(lastAnswerOf(attempt({})).reason).toBe('this was the last attempt allowed');
    expect(lastAnswerOf(attempt({ final_reason: 'receiver_stopped' })).reason).toBe('the destination asked for no more attempts');
    expect(lastAnswerOf(attempt({ final_reason: 'final_status', response_status_code: 400 })).reason).toBe('Ferry does not retry this outcome');
    // Without a recorded reason, what happened to the attempt.
    expect(lastAnswerOf(attempt({ final_reason: null, status: 'timed_out', response: null })).reason).toBe('the attempt timed out');
    expect(lastAnswerOf(attempt({ final_reason: null })).reason).toBe('the destination answered 500');
  });

  it('shows the body start on one line, and words for what is no text', () => {
    expect(lastAnswerOf(attempt({}))).toMatchObject({ excerpt: '{"error": "down"}', isBody: true });
    expect(excerptOf('line one\n\n  line two\t!')).toBe('line one line two !');
    expect(excerptOf('short', true)).toBe('short…');
    const long = excerptOf('é'.repeat(500));
    expect([...long]).toHaveLength(EXCERPT_CHARS);
    expect(long.endsWith('…')).toBe(true);
    const r = { headers: {}, body_truncated: false };
    expect(lastAnswerOf(attempt({ response: { ...r, body: '', body_encoding: null } }))).toMatchObject({ excerpt: 'empty body', isBody: false });
    expect(lastAnswerOf(attempt({ response: { ...r, body: 'AAEC', body_encoding: 'base64' } })).excerpt).toBe('body is not text');
    expect(lastAnswerOf(attempt({ response: { ...r, body: null, body_encoding: null } })).excerpt).toBe('body not kept');
    expect(lastAnswerOf(attempt({ response: null, error_message: 'connect ECONNREFUSED\n127.0.0.1' })).excerpt).toBe('no response: connect ECONNREFUSED 127.0.0.1');
    expect(lastAnswerOf(null)).toEqual({ reason: 'no attempt was made', excerpt: 'no response', isBody: false });
  });

  it('takes the last of the attempts', () => {
    expect(lastAttemptOf({ attempts: [] })).toBeNull();
    expect(lastAttemptOf({ attempts: [attempt({ attempt_number: 1 }), attempt({ attempt_number: 2 })] })?.attempt_number).toBe(2);
  });
});
