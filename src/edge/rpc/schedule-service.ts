import { create } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { Authenticator } from '../../app/authenticate.js';
import type { ScheduleCommands } from '../../app/schedule-commands.js';
import type { ScheduleQueries } from '../../app/schedule-queries.js';
import type { ScheduleRunCommands } from '../../app/schedule-run-commands.js';
import type { Project } from '../../domain/project.js';
import {
  CreateScheduleResponseSchema,
  DeleteScheduleResponseSchema,
  GetScheduleResponseSchema,
  ListSchedulesResponseSchema,
  PauseScheduleResponseSchema,
  PreviewScheduleResponseSchema,
  ResumeScheduleResponseSchema,
  TriggerScheduleResponseSchema,
  BackfillScheduleResponseSchema,
  UpdateScheduleResponseSchema,
  type ScheduleService,
} from '../../gen/ferry/v1/schedule_service_pb.js';
import { callerProject } from './caller-project.js';
import { scheduleInputOf, scheduleSummaryToProto, scheduleToProto, timingInputOf } from './schedule-proto.js';
import { acceptanceToProto, ts } from './to-proto.js';
import { noteAccepted } from '../calls/notes.js';

export interface ScheduleServiceDeps {
  readonly auth: Authenticator;
  readonly commands: ScheduleCommands;
  readonly queries: ScheduleQueries;
  readonly runs: ScheduleRunCommands;
}

/**
 * The schedule API for every protocol: gRPC and Connect call it through the Connect router, the JSON HTTP gateway
 * calls the same functions. It only maps messages; rules live in the domain and the use cases.
 */
export function scheduleServiceImpl(deps: ScheduleServiceDeps): ServiceImpl<typeof ScheduleService> {
  const project = (ctx: HandlerContext): Promise<Project> => callerProject(deps.auth, ctx);
  return {
    async createSchedule(req, ctx) {
      const schedule = await deps.commands.create(await project(ctx), scheduleInputOf(req), req.idempotencyKey);
      return create(CreateScheduleResponseSchema, { schedule: scheduleSummaryToProto(schedule) });
    },
    async listSchedules(req, ctx) {
      const { items, page } = await deps.queries.list(await project(ctx), { limit: req.limit, cursor: req.cursor });
      return create(ListSchedulesResponseSchema, {
        schedules: items.map(scheduleSummaryToProto),
        page: page === null ? undefined : { nextCursor: page.next ?? undefined },
      });
    },
    async previewSchedule(req, ctx) {
      const runs = await deps.queries.preview(await project(ctx), {
        timing: timingInputOf(req.timing),
        after: req.after,
        count: req.count,
        scheduleId: req.scheduleId,
      });
      return create(PreviewScheduleResponseSchema, {
        runTimes: runs.map((r) => ts(r.at)),
        runs: runs.map((r) => ({ at: ts(r.at), instant: ts(r.instant), dst: r.dst })),
      });
    },
    async getSchedule(req, ctx) {
      const { schedule, statuses } = await deps.queries.detail(await project(ctx), req.scheduleId);
      return create(GetScheduleResponseSchema, { schedule: scheduleToProto(schedule, statuses) });
    },
    async updateSchedule(req, ctx) {
      const schedule = await deps.commands.update(await project(ctx), req.scheduleId, scheduleInputOf(req));
      return create(UpdateScheduleResponseSchema, { schedule: scheduleSummaryToProto(schedule) });
    },
    async pauseSchedule(req, ctx) {
      const schedule = await deps.commands.pause(await project(ctx), req.scheduleId);
      return create(PauseScheduleResponseSchema, { schedule: scheduleSummaryToProto(schedule) });
    },
    async resumeSchedule(req, ctx) {
      const schedule = await deps.commands.resume(await project(ctx), req.scheduleId);
      return create(ResumeScheduleResponseSchema, { schedule: scheduleSummaryToProto(schedule) });
    },
    async triggerSchedule(req, ctx) {
      const accepted = await deps.runs.trigger(await project(ctx), req.scheduleId, req.idempotencyKey);
      noteAccepted(ctx, accepted);
      return create(TriggerScheduleResponseSchema, { acceptance: acceptanceToProto(accepted) });
    },
    async backfillSchedule(req, ctx) {
      const occurrences = await deps.runs.backfill(await project(ctx), req.scheduleId, { from: req.from, to: req.to }, req.idempotencyKey);
      return create(BackfillScheduleResponseSchema, { occurrences });
    },
    async deleteSchedule(req, ctx) {
      await deps.commands.delete(await project(ctx), req.scheduleId);
      return create(DeleteScheduleResponseSchema, {});
    },
  };
}
