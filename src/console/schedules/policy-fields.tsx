import type { SchedulePolicy } from '../../../sdk/src/types.js';
import type { ShownError } from '../shell/ferry-api.js';
import { FieldProblem, fieldAttributes, localProblem } from '../ui/field-problem.js';

/** The policy as typed: counts as text, so text that is no number is refused here instead of read as "none". */
export interface PolicyDraft {
  readonly overlap: string;
  readonly maxRuns: string;
  readonly jitterSeconds: string;
  readonly pauseAfterFailures: string;
}

type PolicyInput = { overlap?: 'allow_all' | 'skip' | 'buffer_one'; max_runs?: number; jitter_seconds?: number; pause_after_failures?: number };

export const OVERLAP_WORDS: Record<string, string> = {
  allow_all: 'run every time, even while the previous run is still going',
  skip: 'skip a run while the previous one is still going',
  buffer_one: 'let one run wait for the previous one to end; skip any further',
};

export function policyDraftOf(p: SchedulePolicy | null | undefined): PolicyDraft {
  const text = (n: number | null | undefined) => (n === null || n === undefined || n === 0 ? '' : String(n));
  return { overlap: p?.overlap ?? 'allow_all', maxRuns: text(p?.max_runs), jitterSeconds: text(p?.jitter_seconds), pauseAfterFailures: text(p?.pause_after_failures) };
}

/** The policy to send (an emptied count means none), or the first count that is no whole number. */
export function policyOf(d: PolicyDraft): { policy: PolicyInput } | { problem: ShownError } {
  const policy: PolicyInput = { overlap: d.overlap as PolicyInput['overlap'] };
  const counts = [
    ['maxRuns', 'max_runs'],
    ['jitterSeconds', 'jitter_seconds'],
    ['pauseAfterFailures', 'pause_after_failures'],
  ] as const;
  for (const [member, field] of counts) {
    const text = d[member].trim();
    if (text === '') continue;
    if (!/^\d+$/.test(text)) return { problem: localProblem(`policy.${field}`, `${text} is not a whole number.`) };
    policy[field] = Number(text);
  }
  return { policy };
}

/** Overlap, run limit, jitter and pause after failures; every range is Ferry's to judge, its 422 shown at the field. */
export function PolicyFields({ draft, onChange, error, prefix }: { draft: PolicyDraft; onChange: (d: PolicyDraft) => void; error: ShownError | null; prefix: string }) {
  const set = (change: Partial<PolicyDraft>) => onChange({ ...draft, ...change });
  const id = (name: string) => `${prefix}-policy-${name}`;
  return (
    <fieldset>
      <legend>Policy</legend>
      <label for={id('overlap')}>When a run is due while the previous one is still going</label>
      <select {...fieldAttributes(error, 'policy.overlap', id('overlap'))} value={draft.overlap} onChange={(e) => set({ overlap: e.currentTarget.value })}>
        {Object.entries(OVERLAP_WORDS).map(([value, words]) => (
          <option key={value} value={value}>
            {words}
          </option>
        ))}
      </select>
      <FieldProblem error={error} field="policy.overlap" id={id('overlap')} />
      <label for={id('max-runs')}>Stop after this many runs (optional)</label>
      <input {...fieldAttributes(error, 'policy.max_runs', id('max-runs'))} inputMode="numeric" value={draft.maxRuns} onInput={(e) => set({ maxRuns: e.currentTarget.value })} />
      <FieldProblem error={error} field="policy.max_runs" id={id('max-runs')} />
      <label for={id('jitter')}>Delay each run by up to this many seconds (optional)</label>
      <input {...fieldAttributes(error, 'policy.jitter_seconds', id('jitter'))} inputMode="numeric" value={draft.jitterSeconds} onInput={(e) => set({ jitterSeconds: e.currentTarget.value })} />
      <FieldProblem error={error} field="policy.jitter_seconds" id={id('jitter')} />
      <label for={id('pause')}>Pause after this many failed runs in a row (optional, 1 to 100)</label>
      <input
        {...fieldAttributes(error, 'policy.pause_after_failures', id('pause'))}
        inputMode="numeric"
        value={draft.pauseAfterFailures}
        onInput={(e) => set({ pauseAfterFailures: e.currentTarget.value })}
      />
      <FieldProblem error={error} field="policy.pause_after_failures" id={id('pause')} />
    </fieldset>
  );
}

/** The policy in words, for the schedule's facts. */
export function policyInWords(p: SchedulePolicy | null | undefined): string {
  if (!p) return '—';
  const parts = [OVERLAP_WORDS[p.overlap ?? 'allow_all'] ?? p.overlap ?? ''];
  if (p.max_runs) parts.push(`ends after ${p.max_runs} runs`);
  if (p.jitter_seconds) parts.push(`each run delayed by up to ${p.jitter_seconds} s`);
  if (p.pause_after_failures) parts.push(`pauses after ${p.pause_after_failures} failed runs in a row`);
  return parts.join('; ');
}
