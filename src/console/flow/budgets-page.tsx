import { useState } from 'preact/hooks';
import type { Budget } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { hrefOf, navigate } from '../shell/router.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { usePolled } from '../ui/use-polled.js';
import type { BudgetKind } from './budget-kind.js';
import { admittedText, concurrencyText, inFlightText, isSlowed, rateText, waitingText, waitingTotal } from './budget-words.js';
import { PausedBadge, SlowedBadge } from './badges.js';
import './flow.css';

const LIVE_EVERY_MS = 5_000;

/** `#/queues`, `#/flow-keys` (`?cursor=…`): the project's queues or configured flow keys, in name order, kept live. */
export function BudgetsPage({ of, query }: { of: BudgetKind; query: URLSearchParams }) {
  const { api } = useSession();
  const cursor = query.get('cursor') ?? '';
  const list = usePolled(() => of.client(api.reads).list(cursor === '' ? {} : { cursor }), [of.kind, cursor], { everyMs: LIVE_EVERY_MS });
  const items = list.data?.items ?? [];
  const nextCursor = list.data?.next_cursor ?? null;

  return (
    <section aria-labelledby="budgets-title" class="flow-ui">
      <div class="spread">
        <h1 id="budgets-title">{of.title}</h1>
        <p class="muted live-note" aria-live="polite">
          {list.loading && list.data === null ? 'Loading…' : `Live: updated every ${LIVE_EVERY_MS / 1_000} s`}
        </p>
      </div>
      <p class="muted intro">
        {of.kind === 'queue'
          ? 'Every request counts against its queue: the queues this project has used or configured, with their limits and how each stands now.'
          : (
            <>
              Requests name up to 4 flow keys in <code>flow_keys</code>; an attempt starts only when its queue and every one of its keys admit
              it. Listed here: the keys configured or paused.
            </>
          )}
      </p>
      <OpenByName of={of} />
      {list.error ? <ErrorNotice error={list.error} /> : null}
      {list.data !== null && items.length === 0 ? <p class="muted">{cursor === '' ? emptyText(of) : `No more ${of.title.toLowerCase()}.`}</p> : null}
      {items.length > 0 ? <BudgetTable of={of} budgets={items} /> : null}
      <nav class="pager row" aria-label={`Pages of ${of.title.toLowerCase()}`}>
        {cursor !== '' ? <a href={hrefOf(of.list(new URLSearchParams()))}>First page</a> : null}
        {nextCursor !== null ? <a href={hrefOf(of.list(new URLSearchParams({ cursor: nextCursor })))}>Next page</a> : null}
      </nav>
    </section>
  );
}

function emptyText(of: BudgetKind): string {
  return of.kind === 'queue'
    ? 'No queue yet: a queue is listed once a request names it or it is configured.'
    : 'No flow key is configured or paused. Open a key by name to see its live state, set its limits or pause it.';
}

/**
 * Any name opens, listed or not: a key never configured still has a live state and can be paused. The API judges
 * the name; the page it opens shows its refusal.
 */
function OpenByName({ of }: { of: BudgetKind }) {
  const [name, setName] = useState('');
  const id = `open-${of.kind}`;
  return (
    <form
      class="filters open-by-name"
      aria-label={`Open a ${of.one}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim() !== '') navigate(of.item(name.trim()));
      }}
    >
      <div>
        <label for={id}>Open a {of.one} by name</label>
        <input id={id} class="mono" spellcheck={false} autocomplete="off" placeholder={of.kind === 'queue' ? 'default' : 'vendor:acme'} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <button type="submit">Open</button>
    </form>
  );
}

function BudgetTable({ of, budgets }: { of: BudgetKind; budgets: Budget[] }) {
  return (
    <div class="table-wrap">
      <table class="budgets" aria-label={of.title}>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Limits</th>
            <th scope="col">In flight</th>
            <th scope="col">Waiting</th>
            <th scope="col" class="wide">
              Admitted rate
            </th>
          </tr>
        </thead>
        <tbody>
          {budgets.map((b) => (
            <tr key={b.name}>
              <td>
                <a href={hrefOf(of.item(b.name))}>
                  <code>{b.name}</code>
                </a>{' '}
                {b.paused ? <PausedBadge /> : null} {isSlowed(b) ? <SlowedBadge /> : null}
              </td>
              <td>
                {rateText(b.rate)}
                <div class="muted small">
                  {concurrencyText(b.concurrency)}
                  {b.adaptive ? '' : ', not adaptive'}
                </div>
              </td>
              <td>{inFlightText(b)}</td>
              <td>
                {waitingTotal(b.waiting)}
                {waitingTotal(b.waiting) > 0 ? <div class="muted small">{waitingText(b.waiting)}</div> : null}
              </td>
              <td class="wide">{admittedText(b)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
