import { useState } from 'preact/hooks';
import type { Budget } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { hrefOf } from '../shell/router.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { Time } from '../ui/time.js';
import { usePolled } from '../ui/use-polled.js';
import { PausedBadge, SlowedBadge } from './badges.js';
import { BudgetActions } from './budget-actions.js';
import type { BudgetKind } from './budget-kind.js';
import { admittedText, concurrencyText, inFlightText, isSlowed, numberText, rateText, startedText, waitingTotal } from './budget-words.js';
import { EditLimits } from './edit-limits.js';
import './flow.css';

/** How often an open queue or key is read again: its counts move with every attempt. */
const LIVE_EVERY_MS = 2_000;

/** `#/queues/<name>`, `#/flow-keys/<key>`: one queue or flow key, its limits and how it stands now, kept live. */
export function BudgetPage({ of, name }: { of: BudgetKind; name: string }) {
  // Another name is another page: nothing of the previous one (an open form, an action's answer) may linger.
  return <BudgetView key={`${of.kind}:${name}`} of={of} name={name} />;
}

function BudgetView({ of, name }: { of: BudgetKind; name: string }) {
  const { api } = useSession();
  const polled = usePolled(() => of.client(api.reads).get(name), [of.kind, name], { everyMs: LIVE_EVERY_MS });
  const [editing, setEditing] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const budget = polled.data;
  const back = (
    <p class="back">
      <a href={hrefOf(of.list(new URLSearchParams()))}>← {of.title}</a>
    </p>
  );
  const title = `${of.one[0]!.toUpperCase()}${of.one.slice(1)}`;

  if (budget === null) {
    return (
      <section class="flow-ui">
        {back}
        <h1>
          {title} <code>{name}</code>
        </h1>
        {polled.error ? <ErrorNotice error={polled.error} /> : <p class="muted">Loading…</p>}
      </section>
    );
  }
  const changed = (text: string) => {
    setSaid(text);
    setEditing(false);
    polled.refresh();
  };
  return (
    <section aria-labelledby="budget-title" class="flow-ui">
      {back}
      <div class="spread budget-head">
        <div>
          <h1 id="budget-title">
            {title} <code>{budget.name}</code>
          </h1>
          <div class="row">
            {budget.paused ? <PausedBadge /> : <span class="badge status-active">running</span>}
            {isSlowed(budget) ? <SlowedBadge /> : null}
          </div>
        </div>
        <BudgetActions of={of} budget={budget} onChanged={() => {
            setSaid(null);
            polled.refresh();
          }} editing={editing} onEdit={() => setEditing(true)} />
      </div>
      <p class="notice ok" role="status" hidden={said === null}>
        {said}
      </p>
      {polled.error ? <ErrorNotice error={polled.error} /> : null}
      <LiveState of={of} budget={budget} />
      {editing ? (
        <EditLimits of={of} budget={budget} onSaved={() => changed('Limits saved: they apply from now on.')} onCancel={() => setEditing(false)} />
      ) : (
        <Limits budget={budget} />
      )}
    </section>
  );
}

function LiveState({ of, budget: b }: { of: BudgetKind; budget: Budget }) {
  const started = startedText(b);
  return (
    <section class="panel" aria-label="Now">
      <h2>Now</h2>
      {isSlowed(b) ? (
        <p class="notice slowed-notice" role="status">
          <strong>A destination has slowed this {of.one}.</strong> It answered 429 or 503, so {numberText(b.admitted_rate ?? 0)} attempts per{' '}
          {b.rate?.period} start instead of {numberText(b.rate?.limit ?? 0)}. The rate climbs back as calls succeed.
        </p>
      ) : null}
      <dl class="facts">
        <dt>Paused</dt>
        <dd>{b.paused ? 'yes: no new attempt starts under it; attempts in flight finish' : 'no'}</dd>
        <dt>In flight</dt>
        <dd>{inFlightText(b)}</dd>
        <dt>Started this period</dt>
        <dd>{started ?? <span class="muted">— (no rate limit)</span>}</dd>
        <dt>Waiting</dt>
        <dd>
          {numberText(waitingTotal(b.waiting))} {waitingTotal(b.waiting) === 1 ? 'request' : 'requests'} held back
          <ul class="waiting" aria-label="Waiting by reason">
            <li>rate limit: {numberText(b.waiting.rate)}</li>
            <li>concurrency limit: {numberText(b.waiting.concurrency)}</li>
            <li>paused: {numberText(b.waiting.paused)}</li>
          </ul>
        </dd>
        <dt>Admitted rate</dt>
        <dd>{admittedText(b)}</dd>
      </dl>
    </section>
  );
}

function Limits({ budget: b }: { budget: Budget }) {
  return (
    <section class="panel" aria-label="Limits">
      <h2>Limits</h2>
      <dl class="facts">
        <dt>Rate</dt>
        <dd>{rateText(b.rate)}</dd>
        <dt>Concurrency</dt>
        <dd>{concurrencyText(b.concurrency)}</dd>
        <dt>Adaptive</dt>
        <dd>{b.adaptive ? "yes: a destination's 429 or 503 lowers the admitted rate for a while" : 'no: the rate stays at its limit whatever destinations answer'}</dd>
        <dt>Changed</dt>
        <dd>{b.updated_at === null ? <span class="muted">never configured</span> : <Time value={b.updated_at} />}</dd>
      </dl>
    </section>
  );
}
