import type { RequestSummary } from '../../../sdk/src/types.js';
import { hrefOf } from '../shell/router.js';
import { CopyId } from '../ui/copy-id.js';
import { Time } from '../ui/time.js';
import { useLastAnswers, type AnswerState } from './use-last-answers.js';

/**
 * Failed requests with a box each to select them and one to select the page; each row says what the destination
 * last answered (its code), why Ferry stopped, in words, and the start of the body. On a narrow screen each row
 * folds into a block (failures.css).
 */
export function FailureTable({ items, selected, onSelect }: {
  items: readonly RequestSummary[];
  selected: ReadonlySet<string>;
  onSelect: (next: ReadonlySet<string>) => void;
}) {
  const answers = useLastAnswers(items.map((r) => r.id));
  const now = Date.now();
  const onPage = items.filter((r) => selected.has(r.id)).length;
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    onSelect(next);
  };
  const togglePage = () => {
    const next = new Set(selected);
    if (onPage === items.length) for (const r of items) next.delete(r.id);
    else for (const r of items) next.add(r.id);
    onSelect(next);
  };
  return (
    <div class="table-wrap">
      <table class="failures">
        <thead>
          <tr>
            <th scope="col" class="pick">
              <input
                type="checkbox"
                aria-label="Select this page"
                checked={onPage === items.length}
                indeterminate={onPage > 0 && onPage < items.length}
                onChange={togglePage}
              />
            </th>
            <th scope="col">ID</th>
            <th scope="col">URL</th>
            <th scope="col">Last answer</th>
            <th scope="col">Why it ended</th>
            <th scope="col">Response body</th>
            <th scope="col">Failed</th>
          </tr>
        </thead>
        <tbody>
          {items.map((r) => (
            <tr key={r.id} class={selected.has(r.id) ? 'picked' : undefined}>
              <td class="pick">
                <input type="checkbox" aria-label={`Select ${r.id}`} checked={selected.has(r.id)} onChange={() => toggle(r.id)} />
              </td>
              <td class="id">
                <CopyId id={r.id} href={hrefOf({ page: 'request', id: r.id })} />
              </td>
              <td class="url">
                <code>{r.method}</code> {r.url}
                <div class="muted queue-line">queue {r.queue}</div>
              </td>
              <td class="code">
                {r.last_response_status_code === null ? <span class="muted">no response</span> : <span class="http-code">HTTP {r.last_response_status_code}</span>}
              </td>
              <AnswerCells state={answers.get(r.id)} />
              <td class="ended">
                <Time value={r.completed_at} now={now} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function AnswerCells({ state }: { state: AnswerState | undefined }) {
  if (state === undefined || state.state === 'loading') {
    return (
      <>
        <td class="reason muted">…</td>
        <td class="excerpt muted">…</td>
      </>
    );
  }
  if (state.state === 'unread') {
    return (
      <>
        <td class="reason muted">not read (open the request)</td>
        <td class="excerpt muted">—</td>
      </>
    );
  }
  const a = state.answer;
  return (
    <>
      <td class="reason">{a.reason}</td>
      <td class="excerpt">{a.isBody ? <code class="body-excerpt">{a.excerpt}</code> : <span class="muted">{a.excerpt}</span>}</td>
    </>
  );
}
