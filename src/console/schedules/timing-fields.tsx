import type { Timing } from '../../../sdk/src/types.js';
import type { ShownError } from '../shell/ferry-api.js';
import { UTC_FIELD_PLACEHOLDER, readUtcField } from '../ui/utc-field.js';
import { FieldProblem, fieldAttributes, localProblem } from '../ui/field-problem.js';
import type { ReadTiming } from './timing-words.js';
import { cronInWords } from './timing-words.js';

/** What the timing fields hold, as typed: cron expression and zone, or an interval in minutes and a first run. */
export interface TimingDraft {
  readonly kind: 'cron' | 'interval';
  readonly expression: string;
  readonly timezone: string;
  readonly everyMinutes: string;
  /** UTC text as `ui/utc-field.ts` reads it (`2026-11-25 09:30`), or empty for "one interval from now". */
  readonly startsAt: string;
}

const viewerZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function draftOf(timing: ReadTiming | null): TimingDraft {
  if (timing?.type === 'interval') {
    return { kind: 'interval', expression: '0 9 * * 1-5', timezone: viewerZone(), everyMinutes: String((timing.every_seconds ?? 3600) / 60), startsAt: '' };
  }
  return {
    kind: 'cron',
    expression: timing?.expression ?? '0 9 * * 1-5',
    timezone: timing?.timezone ?? viewerZone(),
    everyMinutes: '60',
    startsAt: '',
  };
}

/** The timing to send, or the problem with the draft, found before Ferry is asked (only what Ferry could not say). */
export function timingOf(draft: TimingDraft): { timing: Timing } | { problem: ShownError } {
  if (draft.kind === 'cron') return { timing: { type: 'cron', expression: draft.expression.trim(), timezone: draft.timezone.trim() } };
  const minutes = Number(draft.everyMinutes);
  if (draft.everyMinutes.trim() === '' || !Number.isFinite(minutes)) {
    return { problem: localProblem('timing.every_seconds', 'Give the interval as a whole number of minutes.') };
  }
  const timing: Timing = { type: 'interval', every_seconds: Math.round(minutes * 60) };
  const startsAt = readUtcField(draft.startsAt);
  if (!startsAt.ok) return { problem: localProblem('timing.starts_at', startsAt.message) };
  if (startsAt.rfc3339 !== '') timing.starts_at = startsAt.rfc3339;
  return { timing };
}

let zones: string[] | null = null;
function knownZones(): string[] {
  zones ??= ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  return zones;
}

/** The timing part of the new-schedule and edit forms; `prefix` keeps the IDs apart when both are on one page. */
export function TimingFields({ draft, onChange, error, prefix }: {
  draft: TimingDraft;
  onChange: (draft: TimingDraft) => void;
  error: ShownError | null;
  prefix: string;
}) {
  const set = (change: Partial<TimingDraft>) => onChange({ ...draft, ...change });
  const words = draft.kind === 'cron' ? cronInWords(draft.expression) : null;
  return (
    <fieldset class="timing-fields">
      <legend>Timing</legend>
      <div class="row" role="radiogroup" aria-label="Kind of timing">
        <label class="choice">
          <input type="radio" name={`${prefix}-kind`} checked={draft.kind === 'cron'} onChange={() => set({ kind: 'cron' })} /> Cron (calendar times in a zone)
        </label>
        <label class="choice">
          <input type="radio" name={`${prefix}-kind`} checked={draft.kind === 'interval'} onChange={() => set({ kind: 'interval' })} /> Fixed interval
        </label>
      </div>
      {draft.kind === 'cron' ? (
        <div class="field-pair">
          <div>
            <label for={`${prefix}-cron`}>Cron expression</label>
            <input
              {...fieldAttributes(error, 'timing.expression', `${prefix}-cron`)}
              class="mono"
              value={draft.expression}
              spellcheck={false}
              autocomplete="off"
              onInput={(e) => set({ expression: e.currentTarget.value })}
            />
            <p class="hint">minute hour day-of-month month day-of-week{words ? ` — ${words}` : ''}</p>
            <FieldProblem error={error} field="timing.expression" id={`${prefix}-cron`} />
          </div>
          <div>
            <label for={`${prefix}-zone`}>Time zone</label>
            <input
              {...fieldAttributes(error, 'timing.timezone', `${prefix}-zone`)}
              list={`${prefix}-zones`}
              value={draft.timezone}
              spellcheck={false}
              autocomplete="off"
              onInput={(e) => set({ timezone: e.currentTarget.value })}
            />
            <datalist id={`${prefix}-zones`}>
              {knownZones().map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
            <p class="hint">IANA name, e.g. Europe/Berlin; runs follow its daylight-saving changes</p>
            <FieldProblem error={error} field="timing.timezone" id={`${prefix}-zone`} />
          </div>
        </div>
      ) : (
        <div class="field-pair">
          <div>
            <label for={`${prefix}-every`}>Every (minutes)</label>
            <input
              {...fieldAttributes(error, 'timing.every_seconds', `${prefix}-every`)}
              type="number"
              min={1}
              max={43_200}
              step={1}
              value={draft.everyMinutes}
              onInput={(e) => set({ everyMinutes: e.currentTarget.value })}
            />
            <p class="hint">1 minute to 30 days (43200 minutes)</p>
            <FieldProblem error={error} field="timing.every_seconds" id={`${prefix}-every`} />
          </div>
          <div>
            <label for={`${prefix}-start`}>First run (UTC, optional)</label>
            <input
              {...fieldAttributes(error, 'timing.starts_at', `${prefix}-start`)}
              class="mono"
              placeholder={UTC_FIELD_PLACEHOLDER}
              value={draft.startsAt}
              spellcheck={false}
              autocomplete="off"
              onInput={(e) => set({ startsAt: e.currentTarget.value })}
            />
            <p class="hint">{UTC_FIELD_PLACEHOLDER}, 24-hour; empty: one interval from now</p>
            <FieldProblem error={error} field="timing.starts_at" id={`${prefix}-start`} />
          </div>
        </div>
      )}
      <FieldProblem error={error} field="timing.type" id={`${prefix}-type`} />
    </fieldset>
  );
}
