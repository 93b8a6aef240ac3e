import type { Timing } from '../../../sdk/src/types.js';
import type { ShownError } from '../shell/ferry-api.js';
import { UTC_FIELD_PLACEHOLDER, readUtcField, utcFieldText } from '../ui/utc-field.js';
import { FieldProblem, fieldAttributes, localProblem } from '../ui/field-problem.js';
import type { ReadTiming } from './timing-words.js';
import { cronInWords } from './timing-words.js';

/** What the timing fields hold, as typed: cron expression and zone, or an interval in minutes and a first run. */
export interface TimingDraft {
  readonly kind: 'cron' | 'interval';
  readonly expression: string;
  readonly timezone: string;
  readonly everyMinutes: string;
  /**
   * UTC text as `ui/utc-field.ts` reads it (`2026-11-25 09:30`): an interval's first run, empty for "one interval
   * from now"; the instant before which a cron fires nothing, empty for none.
   */
  readonly startsAt: string;
  /** UTC text of the instant from which nothing fires (exclusive end), or empty for none. */
  readonly endsAt: string;
  /** What a fixed-hour cron job does in a spring-forward gap and a fall-back overlap. */
  readonly gap: 'shift' | 'skip';
  readonly overlap: 'first' | 'second' | 'both';
}

const GAP_CHOICES = [
  ['shift', 'run once right after the gap'],
  ['skip', 'skip that day'],
] as const;
const OVERLAP_CHOICES = [
  ['first', 'run on the first pass'],
  ['second', 'run on the second pass'],
  ['both', 'run on both passes'],
] as const;

const viewerZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function draftOf(timing: ReadTiming | null): TimingDraft {
  const endsAt = utcFieldText(timing?.ends_at ?? null);
  if (timing?.type === 'interval') {
    const everyMinutes = String((timing.every_seconds ?? 3600) / 60);
    return { kind: 'interval', expression: '0 9 * * 1-5', timezone: viewerZone(), everyMinutes, startsAt: '', endsAt, gap: 'shift', overlap: 'first' };
  }
  // A start already past cannot be given again; leaving it out changes nothing from now on.
  const startsAt = timing?.starts_at && Date.parse(timing.starts_at) > Date.now() ? utcFieldText(timing.starts_at) : '';
  return {
    kind: 'cron',
    expression: timing?.expression ?? '0 9 * * 1-5',
    timezone: timing?.timezone ?? viewerZone(),
    everyMinutes: '60',
    startsAt,
    endsAt,
    gap: timing?.dst?.gap === 'skip' ? 'skip' : 'shift',
    overlap: timing?.dst?.overlap === 'second' || timing?.dst?.overlap === 'both' ? timing.dst.overlap : 'first',
  };
}

/** The timing to send, or the problem with the draft, found before Ferry is asked (only what Ferry could not say). */
export function timingOf(draft: TimingDraft): { timing: Timing } | { problem: ShownError } {
  const startsAt = readUtcField(draft.startsAt);
  if (!startsAt.ok) return { problem: localProblem('timing.starts_at', startsAt.message) };
  const endsAt = readUtcField(draft.endsAt);
  if (!endsAt.ok) return { problem: localProblem('timing.ends_at', endsAt.message) };
  const bounds = { ...(startsAt.rfc3339 !== '' ? { starts_at: startsAt.rfc3339 } : {}), ...(endsAt.rfc3339 !== '' ? { ends_at: endsAt.rfc3339 } : {}) };
  if (draft.kind === 'cron') {
    // The default policy is left out, so a timing that does not choose one reads as before.
    const dst = draft.gap === 'shift' && draft.overlap === 'first' ? {} : { dst: { gap: draft.gap, overlap: draft.overlap } };
    return { timing: { type: 'cron', expression: draft.expression.trim(), timezone: draft.timezone.trim(), ...dst, ...bounds } };
  }
  const minutes = Number(draft.everyMinutes);
  if (draft.everyMinutes.trim() === '' || !Number.isFinite(minutes)) {
    return { problem: localProblem('timing.every_seconds', 'Give the interval as a whole number of minutes.') };
  }
  return { timing: { type: 'interval', every_seconds: Math.round(minutes * 60), ...bounds } };
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
          <div>
            <label for={`${prefix}-gap`}>When the clocks go forward</label>
            <select id={`${prefix}-gap`} value={draft.gap} onChange={(e) => set({ gap: e.currentTarget.value as TimingDraft['gap'] })}>
              {GAP_CHOICES.map(([value, words]) => (
                <option key={value} value={value}>
                  {value}: {words}
                </option>
              ))}
            </select>
            <p class="hint">For a time the change skips; a job whose hour is * follows real time whatever this says</p>
            <FieldProblem error={error} field="timing.dst.gap" id={`${prefix}-gap`} />
          </div>
          <div>
            <label for={`${prefix}-overlap`}>When the clocks go back</label>
            <select id={`${prefix}-overlap`} value={draft.overlap} onChange={(e) => set({ overlap: e.currentTarget.value as TimingDraft['overlap'] })}>
              {OVERLAP_CHOICES.map(([value, words]) => (
                <option key={value} value={value}>
                  {value}: {words}
                </option>
              ))}
            </select>
            <p class="hint">For a time the change repeats</p>
            <FieldProblem error={error} field="timing.dst.overlap" id={`${prefix}-overlap`} />
          </div>
          <UtcBound draft={draft} set={set} error={error} prefix={prefix} bound="starts_at" label="Starts (UTC, optional)" hint="no run before it" />
          <UtcBound draft={draft} set={set} error={error} prefix={prefix} bound="ends_at" label="Ends (UTC, optional)" hint="no run at or after it" />
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
          <UtcBound draft={draft} set={set} error={error} prefix={prefix} bound="ends_at" label="Ends (UTC, optional)" hint="no run at or after it" />
        </div>
      )}
      <FieldProblem error={error} field="timing.type" id={`${prefix}-type`} />
    </fieldset>
  );
}

/** A UTC time field for a bound of the timing: `starts_at` of a cron, `ends_at` of either kind. */
function UtcBound({ draft, set, error, prefix, bound, label, hint }: {
  draft: TimingDraft;
  set: (change: Partial<TimingDraft>) => void;
  error: ShownError | null;
  prefix: string;
  bound: 'starts_at' | 'ends_at';
  label: string;
  hint: string;
}) {
  const id = `${prefix}-${bound === 'starts_at' ? 'cron-start' : 'end'}`;
  const value = bound === 'starts_at' ? draft.startsAt : draft.endsAt;
  return (
    <div>
      <label for={id}>{label}</label>
      <input
        {...fieldAttributes(error, `timing.${bound}`, id)}
        class="mono"
        placeholder={UTC_FIELD_PLACEHOLDER}
        value={value}
        spellcheck={false}
        autocomplete="off"
        onInput={(e) => set(bound === 'starts_at' ? { startsAt: e.currentTarget.value } : { endsAt: e.currentTarget.value })}
      />
      <p class="hint">
        {UTC_FIELD_PLACEHOLDER}, 24-hour; {hint}
      </p>
      <FieldProblem error={error} field={`timing.${bound}`} id={id} />
    </div>
  );
}
