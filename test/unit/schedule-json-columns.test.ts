import { describe, expect, it } from 'vitest';
import { metadataColumn, metadataFromColumn, policyColumn, policyFromColumn, runsColumn, runsFromColumn } from '../../src/adapters/schedule-json-columns.js';
import { DEFAULT_SCHEDULE_POLICY } from '../../src/domain/schedule/policy.js';
import { EMPTY_RUN_STATE, withRun, type RunState } from '../../src/domain/schedule/runs.js';

describe("a schedule's JSON columns, as both backends keep them", () => {
  it('read a schedule stored before they existed (NULL) as the default policy, an empty run state and no metadata', () => {
    expect(policyFromColumn(null)).toStrictEqual(DEFAULT_SCHEDULE_POLICY);
    expect(runsFromColumn(null)).toStrictEqual(EMPTY_RUN_STATE);
    expect(metadataFromColumn(null)).toStrictEqual({});
  });

  it('write the default policy and no metadata as NULL, and anything else so that it reads back the same', () => {
    expect(policyColumn(DEFAULT_SCHEDULE_POLICY)).toBeNull();
    expect(metadataColumn({})).toBeNull();
    const policy = { overlap: 'buffer_one', maxRuns: 7, jitterSeconds: 12, pauseAfterFailures: 100 } as const;
    expect(policyFromColumn(policyColumn(policy))).toStrictEqual(policy);
    // A key named __proto__ stays a plain key both ways.
    const metadata = JSON.parse('{"__proto__":"x","a":"ü"}') as Record<string, string>;
    expect(Object.keys(metadataFromColumn(metadataColumn(metadata)))).toEqual(['__proto__', 'a']);
    let runs: RunState = withRun(EMPTY_RUN_STATE, { at: 1, requestId: 'req_1', outcome: 'enqueued' });
    runs = { ...withRun(runs, { at: 2, requestId: null, outcome: 'skipped_overlap' }), buffered: 3, upcoming: 4, failureStreak: 2, backfilled: [[0, 10]] };
    expect(runsFromColumn(runsColumn(runs))).toStrictEqual(runs);
  });

  it('read a run state written with fewer counters than this build knows, the others at 0', () => {
    const older = runsFromColumn('{"counts": {"enqueued": 4}, "recent": [{"at": 5, "request_id": "req_9", "outcome": "enqueued"}]}');
    expect(older.counts).toStrictEqual({ enqueued: 4, skipped_usage_limit: 0, skipped_overlap: 0, missed: 0, triggered: 0, backfilled: 0 });
    expect(older.recent).toStrictEqual([{ at: 5, requestId: 'req_9', outcome: 'enqueued' }]);
    expect(older).toMatchObject({ buffered: null, upcoming: null, failureStreak: 0, watched: [], backfilled: [] });
  });
});
