import { useEffect, useState } from 'preact/hooks';
import { navigate } from '../shell/router.js';
import { FILTER_NAMES, METHODS, PAGE_SIZES, SOURCES, STATUSES, rfc3339OfUtcInput, utcInputValue, type FilterName } from './list-query.js';

type Draft = Record<FilterName | 'limit', string>;

const EXTRA = ['method', 'source', 'schedule_id', 'from', 'to', 'limit'] as const;

function draftOf(query: URLSearchParams): Draft {
  const draft = { limit: query.get('limit') ?? '' } as Draft;
  for (const name of FILTER_NAMES) draft[name] = query.get(name) ?? '';
  draft.from = utcInputValue(draft.from) || draft.from;
  draft.to = utcInputValue(draft.to) || draft.to;
  return draft;
}

/**
 * Every filter of `GET /requests`, kept in the address (`#/requests?status=failed&search=hooks`) so that a view
 * can be bookmarked and shared. Choices apply at once; the search and the time bounds apply on Enter or Apply.
 * Changing a filter always starts again from the newest page.
 */
export function RequestFilters({ query }: { query: URLSearchParams }) {
  const [draft, setDraft] = useState(() => draftOf(query));
  // On a phone the rarer filters fold away behind a button, unless one of them is in use.
  const [more, setMore] = useState(() => EXTRA.some((name) => (query.get(name) ?? '') !== ''));
  const queryText = query.toString();
  useEffect(() => setDraft(draftOf(query)), [queryText]);

  const apply = (next: Draft) => {
    const params = new URLSearchParams();
    for (const name of FILTER_NAMES) {
      const raw = next[name].trim();
      const value = (name === 'from' || name === 'to') && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(raw) ? rfc3339OfUtcInput(raw) : raw;
      if (value !== '') params.set(name, value);
    }
    if (next.limit !== '') params.set('limit', next.limit);
    navigate({ page: 'requests', query: params });
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
      aria-label="Filter requests"
      onSubmit={(event) => {
        event.preventDefault();
        apply(draft);
      }}
    >
      <div class="grow">
        <label for="f-search">Search</label>
        <input id="f-search" type="search" placeholder="req_… ID or part of the URL" value={draft.search} onInput={type('search')} />
      </div>
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
        <label for="f-schedule">Schedule</label>
        <input id="f-schedule" placeholder="sch_… ID" spellcheck={false} value={draft.schedule_id} onInput={type('schedule_id')} />
      </div>
      <div class="extra">
        <label for="f-from">Created from (UTC)</label>
        <input id="f-from" type="datetime-local" step={1} value={draft.from} onInput={type('from')} />
      </div>
      <div class="extra">
        <label for="f-to">Created before (UTC)</label>
        <input id="f-to" type="datetime-local" step={1} value={draft.to} onInput={type('to')} />
      </div>
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
        <button type="button" onClick={() => navigate({ page: 'requests', query: new URLSearchParams() })}>
          Clear
        </button>
      </div>
    </form>
  );
}
