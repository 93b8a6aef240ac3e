import { describe, expect, it } from 'vitest';
import { ScheduleOccurrences } from '../../src/app/schedule-occurrences.js';
import type { AcceptRequests, NewRequest } from '../../src/app/accept-requests.js';
import type { WaitingFor } from '../../src/domain/flow/budgets.js';
import type { Project } from '../../src/domain/project.js';
import { accepted } from '../../src/domain/request-lifecycle/index.js';
import type { RequestStatus, StoredRequest } from '../../src/domain/request.js';
import type { StoredSchedule } from '../../src/domain/schedule/schedule.js';
import { writeMessage } from '../../src/edge/http/json-writer.js';
import { requestToProto, summaryToProto } from '../../src/edge/rpc/to-proto.js';
import { RequestSchema, RequestSummarySchema } from '../../src/gen/ferry/v1/requests_pb.js';
import type { ProjectStore } from '../../src/ports/projects.js';
import { FakeClock } from '../support/fake-clock.js';

const WHO = { id: 'req_1', projectId: 'prj_1', source: 'api', replayedFromRequestId: null, scheduleId: null } as const;
const DEFINITION = {
  url: 'https://example.com/', method: 'POST', headers: [], body: null, contentType: null, maxAttempts: 1, timeoutSeconds: 50, queue: 'q',
  flowKeys: ['tenant:1', 'vendor'], metadata: {}, callbacks: null,
} as const;
const HELD: WaitingFor = { kind: 'flow_key', name: 'vendor', reason: 'rate', since: 123 };

function stored(status: RequestStatus, waitingFor: WaitingFor | null): StoredRequest {
  return { ...accepted(WHO, DEFINITION, null, 0), status, waitingFor };
}

/** The request as the JSON API answers it, detail and list item. */
function answered(r: StoredRequest): [Record<string, unknown>, Record<string, unknown>] {
  return [
    JSON.parse(writeMessage(RequestSchema, requestToProto(r, []))) as Record<string, unknown>,
    JSON.parse(writeMessage(RequestSummarySchema, summaryToProto(r))) as Record<string, unknown>,
  ];
}

describe('flow keys and waiting_for in request reads', () => {
  it('answers the keys in order, and the budget holding the request back without its internal since', () => {
    for (const status of ['queued', 'scheduled'] as const) {
      for (const read of answered(stored(status, HELD))) {
        expect(read).toMatchObject({ flow_keys: ['tenant:1', 'vendor'], waiting_for: { kind: 'flow_key', name: 'vendor', reason: 'rate' } });
        expect(Object.keys(read.waiting_for as object)).toEqual(['kind', 'name', 'reason']);
      }
    }
    const queue: WaitingFor = { kind: 'queue', name: 'q', reason: 'paused', since: 1 };
    expect(answered(stored('queued', queue))[0].waiting_for).toEqual({ kind: 'queue', name: 'q', reason: 'paused' });
    const busy: WaitingFor = { kind: 'queue', name: 'q', reason: 'concurrency', since: 1 };
    expect(answered(stored('queued', busy))[1].waiting_for).toEqual({ kind: 'queue', name: 'q', reason: 'concurrency' });
  });

  it('answers null while nothing holds it back, and once it is delivering or has ended', () => {
    expect(answered(stored('queued', null)).map((r) => r.waiting_for)).toEqual([null, null]);
    for (const status of ['delivering', 'succeeded', 'failed', 'cancelled'] as const) {
      expect(answered(stored(status, HELD)).map((r) => r.waiting_for), status).toEqual([null, null]);
    }
  });
});

describe('schedule occurrences', () => {
  it('carry the flow keys of the schedule request, and none when it has none', async () => {
    const made: NewRequest[] = [];
    const acceptor = { accept: async (_p: Project, _k: unknown, items: readonly NewRequest[]) => (made.push(...items), items.map((_, n) => ({ id: `req_${made.length + n}` }))) } as unknown as AcceptRequests;
    const project: Project = { id: 'prj_1', name: 'p', monthlyAllowance: 10, scheduleAllowance: 1, retentionDays: 1, captureResponseBodies: true, createdAt: 0 };
    const projects = { getProject: async () => project } as unknown as ProjectStore;
    const occurrences = new ScheduleOccurrences(acceptor, projects, new FakeClock(0));
    const schedule = {
      id: 'sch_1', projectId: 'prj_1', updatedAt: 0, request: { url: 'https://example.com/', headers: [], body: null, retry: 0, flowKeys: ['a', 'b'], queue: 'default', timeoutSeconds: 50, metadata: {} },
    } as unknown as StoredSchedule;
    await occurrences.fire(schedule, 60_000);
    await occurrences.fire({ ...schedule, request: { url: 'https://example.com/', headers: [], body: null, retry: 0, flowKeys: [], queue: 'default', timeoutSeconds: 50, metadata: {} } }, 120_000);
    expect(made.map((r) => r.definition.flowKeys)).toEqual([['a', 'b'], []]);
  });
});
