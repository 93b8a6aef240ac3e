import type { Attempt, RequestDetail } from '../../../sdk/src/types.js';
import { finalReasonWords } from '../requests/final-reason.js';

/** How much of the last body a row of the failures view shows; the request's page shows the whole kept excerpt. */
export const EXCERPT_CHARS = 120;

/** What a failed request's last attempt says, as a row of the failures view shows it. */
export interface LastAnswer {
  /** Why the request ended, in words: the final reason, or what went wrong when no reason was recorded. */
  readonly reason: string;
  /** The start of the body on one line, or what stands in for it (no response, empty, not text, not kept). */
  readonly excerpt: string;
  /** True when `excerpt` is the body's own text rather than words about it. */
  readonly isBody: boolean;
}

/** The last attempt of a request's detail (attempts are listed in order), or null before the first. */
export function lastAttemptOf(detail: Pick<RequestDetail, 'attempts'>): Attempt | null {
  return detail.attempts.at(-1) ?? null;
}

/** The reason and body excerpt of the attempt that ended a request. */
export function lastAnswerOf(attempt: Attempt | null): LastAnswer {
  if (attempt === null) return { reason: 'no attempt was made', excerpt: 'no response', isBody: false };
  const reason = finalReasonWords(attempt.final_reason) ?? attemptOutcomeWords(attempt);
  const r = attempt.response;
  if (r === null) return { reason, excerpt: attempt.error_message === null ? 'no response' : `no response: ${oneLine(attempt.error_message)}`, isBody: false };
  if (r.body === null) return { reason, excerpt: 'body not kept', isBody: false };
  if (r.body === '') return { reason, excerpt: 'empty body', isBody: false };
  if (r.body_encoding === 'base64') return { reason, excerpt: 'body is not text', isBody: false };
  return { reason, excerpt: excerptOf(r.body, r.body_truncated), isBody: true };
}

/** A body on one line, whitespace runs folded, cut at EXCERPT_CHARS with an ellipsis (or one when Ferry cut it). */
export function excerptOf(body: string, truncated = false): string {
  const line = oneLine(body);
  const chars = [...line];
  if (chars.length > EXCERPT_CHARS) return `${chars.slice(0, EXCERPT_CHARS - 1).join('')}…`;
  return truncated ? `${line}…` : line;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** An attempt that ended its request without a recorded final reason (a request from before reasons were kept). */
function attemptOutcomeWords(attempt: Attempt): string {
  if (attempt.status === 'timed_out') return 'the attempt timed out';
  if (attempt.status === 'errored') return 'the connection to the destination failed';
  if (attempt.response_status_code !== null) return `the destination answered ${attempt.response_status_code}`;
  return attempt.status;
}
