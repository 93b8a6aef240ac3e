import { useEffect, useRef, useState } from 'preact/hooks';
import { navigate } from '../shell/router.js';
import { UTC_FIELD_PLACEHOLDER, readUtcField, utcFieldText } from '../ui/utc-field.js';
import { FILTER_NAMES, METHODS, PAGE_SIZES, SOURCES, type FilterName } from './list-query.js';
import { STATUSES } from './request-status.js';

type Draft = Record<FilterName | 'limit', string>;
type TimeBound = 'from' | 'to';

const EXTRA = ['method', 'source', 'queue', 'flow_key', 'response_status_code', 'schedule_id', 'from', 'to', 'limit'] as const;
const TIME_BOUNDS: readonly TimeBound[] = ['from', 'to'];

function draftOf(query: URLSearchParams): Draft {
  const draft = { limit: query.get('limit') ?? '' } as Draft;
  for (const name of FILTER_NAMES) draft[name] = query.get(name) ?? '';
  // A hand-edited address may hold what is no time at all: it is shown as it is, for the API's 422 to explain.
  for (const bound of TIME_BOUNDS) draft[bound] = utcFieldText(draft[bound]) || draft[bound];
  return draft;
}

/** The filters to put in the address, or the first time bound that is not a UTC time, with why. */
function paramsOf(draft: Draft): { params: URLSearchParams } | { bound: TimeBound; message: string } {
  const params = new URLSearchParams();
  for (const name of FILTER_NAMES) {
    let value = draft[name].trim();
    if (name === 'from' || name === 'to') {
      const reading = readUtcField(value);
      if (!reading.ok) return { bound: name, message: reading.message };
      value = reading.rfc3339;
    }
    if (value !== '') params.set(name, value);
  }
  if (draft.limit !== '') params.set('limit', draft.limit);
  return { params };
}

/**
 * Every filter of `GET /requests`, kept in the address (`#/requests?status=failed&search=hooks`) so that a view
 * can be bookmarked and shared. Choices apply at once; the search and the time bounds apply on Enter or Apply.
 * Changing a filter always starts again from the newest page. The failures view (`page` `failures`) shows the
 * same filters but the status, which it fixes at `failed`.
 */
export function RequestFilters({ query, page = 'requests' }: { query: URLSearchParams; page?: 'requests' | 'failures' }) {
  const [draft, setDraft] = useState(() => draftOf(query));
  const [problem, setProblem] = useState<{ bound: TimeBound; message: string } | null>(null);
  // On a phone the rarer filters fold away behind a button, unless one of them is in use.
  const [more, setMore] = useState(() => EXTRA.some((name) => (query.get(name) ?? '') !== ''));
  const queryText = query.toString();
  // What the address said when the form last took it in.
  const taken = useRef(draft);
  useEffect(() => {
    const fromAddress = draftOf(query);
    const before = taken.current;
    taken.current = fromAddress;
    // Only the fields the address changed are taken from it: a navigation that lands while another field is being
    // typed in (the previous filter's, say) must not wipe what is typed there.
    setDraft((current) => {
      const next = { ...current };
      for (const name of Object.keys(fromAddress) as Array<keyof Draft>) if (fromAddress[name] !== before[name]) next[name] = fromAddress[name];
      return next;
    });
    setProblem(null);
  }, [queryText]);

  const apply = (next: Draft) => {
    const built = paramsOf(next);
    if ('bound' in built) {
      // Nothing is sent: a time the field cannot read would otherwise filter by something else than typed.
      setMore(true);
      setProblem(built);
      return;
    }
    setProblem(null);
    navigate({ page, query: built.params });
  };
  const choose = (name: FilterName | 'limit') => (event: Event) => {
    const next = { ...draft, [name]: (event.currentTarget as HTMLSelectElement).value };
    setDraft(next);
    apply(next);
  };
  const type = (name: FilterName) => (event: Event) => setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value });
  const sizes: string[] = PAGE_SIZES.includes(draft.limit as (typeof PAGE_SIZES)[number]) || draft.limit === '' ? [...PAGE_SIZES] : [...PAGE_SIZES, draft.limit];

  return (
    <form
      class={`filters request-filters${more ? ' show-more' : ''}`}
      role="search"
      aria-label={page === 'failures' ? 'Filter failures' : 'Filter requests'}
      onSubmit={(event) => {
        event.preventDefault();
        apply(draft);
      }}
    >
      <div class="grow">
        <label for="f-search">Search</label>
        <input id="f-search" type="search" placeholder="req_… ID or part of the URL" value={draft.search} onInput={type('search')} />
      </div>
      {page === 'failures' ? null : (
        <div>
          <label for="f-status">Status</label>
          <select id="f-status" value={draft.status} onChange={choose('status')}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      )}
      <div class="extra">
        <label for="f-method">Method</label>
        <select id="f-method" value={draft.method} onChange={choose('method')}>
          <option value="">Any</option>
          {METHODS.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      </div>
      <div class="extra">
        <label for="f-source">Source</label>
        <select id="f-source" value={draft.source} onChange={choose('source')}>
          <option value="">Any</option>
          {SOURCES.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </div>
      <div class="extra">
        <label for="f-queue">Queue</label>
        <input id="f-queue" placeholder="e.g. billing" spellcheck={false} autocomplete="off" value={draft.queue} onInput={type('queue')} />
      </div>
      <div class="extra">
        <label for="f-flow-key">Flow key</label>
        <input id="f-flow-key" placeholder="e.g. vendor:acme" spellcheck={false} autocomplete="off" value={draft.flow_key} onInput={type('flow_key')} />
      </div>
      <div class="extra">
        <label for="f-status-code">Last response code</label>
        <input
          id="f-status-code"
          class="mono"
          inputMode="numeric"
          placeholder="e.g. 503"
          spellcheck={false}
          autocomplete="off"
          value={draft.response_status_code}
          onInput={type('response_status_code')}
        />
      </div>
      <div class="extra">
        <label for="f-schedule">Schedule</label>
        <input id="f-schedule" placeholder="sch_… ID" spellcheck={false} value={draft.schedule_id} onInput={type('schedule_id')} />
      </div>
      <TimeBoundField bound="from" label="Created from (UTC)" value={draft.from} problem={problem} onInput={type('from')} />
      <TimeBoundField bound="to" label="Created before (UTC)" value={draft.to} problem={problem} onInput={type('to')} />
      <div class="extra">
        <label for="f-limit">Per page</label>
        <select id="f-limit" value={draft.limit} onChange={choose('limit')}>
          <option value="">50</option>
          {sizes
            .filter((s) => s !== '50')
            .map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
        </select>
      </div>
      <div class="row filter-buttons">
        <button type="button" class="more-toggle" aria-expanded={more} onClick={() => setMore(!more)}>
          {more ? 'Fewer filters' : 'More filters'}
        </button>
        <button type="submit" class="primary">
          Apply
        </button>
        <button type="button" onClick={() => navigate({ page, query: new URLSearchParams() })}>
          Clear
        </button>
      </div>
    </form>
  );
}

/** A time bound typed as UTC text, 24-hour (see `ui/utc-field.ts`), with the reason it was not applied under it. */
function TimeBoundField({ bound, label, value, problem, onInput }: {
  bound: TimeBound;
  label: string;
  value: string;
  problem: { bound: TimeBound; message: string } | null;
  onInput: (event: Event) => void;
}) {
  const id = `f-${bound}`;
  const message = problem?.bound === bound ? problem.message : null;
  return (
    <div class="extra time-bound">
      <label for={id}>{label}</label>
      <input
        id={id}
        class="mono"
        placeholder={UTC_FIELD_PLACEHOLDER}
        spellcheck={false}
        autocomplete="off"
        value={value}
        onInput={onInput}
        aria-invalid={message !== null ? true : undefined}
        aria-describedby={message !== null ? `${id}-error` : undefined}
      />
      {message !== null ? (
        <p class="field-error" id={`${id}-error`}>
          {message}
        </p>
      ) : null}
    </div>
  );
}
