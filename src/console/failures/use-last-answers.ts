import { useEffect, useRef, useState } from 'preact/hooks';
import { useSession } from '../shell/context.js';
import { lastAnswerOf, lastAttemptOf, type LastAnswer } from './last-answer.js';

/**
 * How many request details are read at once for the rows on screen: the list does not carry the last response's
 * body or final reason, so each row's comes from `GET /requests/{id}`; a page of 100 then costs 100 reads, a few
 * at a time rather than all in one burst against the project's read limits.
 */
const AT_ONCE = 4;

/** A row's last answer: still loading, read, or not readable (its detail failed to load). */
export type AnswerState = { readonly state: 'loading' } | { readonly state: 'read'; readonly answer: LastAnswer } | { readonly state: 'unread' };

/**
 * The last answers of the failed requests with these IDs, read a few at a time and kept for the page's life: a
 * failed request has ended, so what its last attempt said never changes. A failed read is not retried until the
 * IDs change again (the next page, a new filter, the list's next refresh bringing new rows).
 */
export function useLastAnswers(ids: readonly string[]): ReadonlyMap<string, AnswerState> {
  const { api } = useSession();
  const known = useRef(new Map<string, AnswerState>());
  const [, setVersion] = useState(0);
  const idsKey = ids.join(',');

  useEffect(() => {
    const wanted = ids.filter((id) => !known.current.has(id) || known.current.get(id)?.state === 'unread');
    if (wanted.length === 0) return;
    let stopped = false;
    for (const id of wanted) known.current.set(id, { state: 'loading' });
    const queue = [...wanted];
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined && !stopped; id = queue.shift()) {
        try {
          const detail = await api.reads.requests.get(id);
          known.current.set(id, { state: 'read', answer: lastAnswerOf(lastAttemptOf(detail)) });
        } catch {
          known.current.set(id, { state: 'unread' });
        }
        // Shown even after the rows changed: a read under way when they did is not asked for again.
        setVersion((v) => v + 1);
      }
    };
    void Promise.all(Array.from({ length: Math.min(AT_ONCE, queue.length) }, worker));
    return () => {
      stopped = true;
      // What was not read yet is asked for again when these rows come back.
      for (const id of queue) known.current.delete(id);
    };
  }, [idsKey]);
  return known.current;
}
