import { Fragment } from 'preact';
import type { WaitingFor } from '../../../sdk/src/types.js';
import { hrefOf } from '../shell/router.js';
import { budgetKindOf } from './budget-kind.js';
import { holdReasonText, kindText } from './budget-words.js';

/** A request's `waiting_for` in words, its budget linked: "waiting for flow key `vendor:acme`: rate limit". */
export function WaitingForText({ waitingFor: w }: { waitingFor: WaitingFor }) {
  return (
    <span class="waiting-for">
      waiting for {kindText(w.kind)}{' '}
      <a href={hrefOf(budgetKindOf(w.kind).item(w.name))}>
        <code>{w.name}</code>
      </a>
      : {holdReasonText(w.reason)}
    </span>
  );
}

/** A request's flow keys, each linked to its page, in the order the request gives them. */
export function FlowKeyLinks({ keys }: { keys: readonly string[] }) {
  if (keys.length === 0) return <span class="muted">none</span>;
  return (
    <span class="flow-key-links">
      {keys.map((key, i) => (
        <Fragment key={key}>
          {i > 0 ? ', ' : null}
          <a href={hrefOf({ page: 'flow-key', name: key })}>
            <code>{key}</code>
          </a>
        </Fragment>
      ))}
    </span>
  );
}
