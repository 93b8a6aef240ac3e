import { create } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { Authenticator } from '../../app/authenticate.js';
import type { RequestCommands } from '../../app/request-commands.js';
import type { RequestQueries } from '../../app/request-queries.js';
import type { Project } from '../../domain/project.js';
import {
  BatchCreateRequestsResponseSchema,
  CancelRequestResponseSchema,
  CancelStatus,
  CreateRequestResponseSchema,
  GetRequestResponseSchema,
  ListAttemptsResponseSchema,
  ListRequestsResponseSchema,
  ReplayRequestResponseSchema,
  SendResponseSchema,
  type RequestService,
} from '../../gen/ferry/v1/request_service_pb.js';
import { noteAccepted } from '../calls/notes.js';
import { callerProject } from './caller-project.js';
import { createInputOf, sendInputOf } from './from-proto.js';
import { acceptanceToProto, attemptToProto, requestToProto, summaryToProto, ts } from './to-proto.js';

export interface RequestServiceDeps {
  readonly auth: Authenticator;
  readonly commands: RequestCommands;
  readonly queries: RequestQueries;
}

/**
 * The request API for every protocol: gRPC and Connect call it through the Connect router, the JSON HTTP
 * gateway calls the same functions. It only maps messages; rules live in the domain and the use cases.
 */
export function requestServiceImpl(deps: RequestServiceDeps): ServiceImpl<typeof RequestService> {
  const project = (ctx: HandlerContext): Promise<Project> => callerProject(deps.auth, ctx);
  return {
    async send(req, ctx) {
      const accepted = await deps.commands.send(await project(ctx), sendInputOf(req), req.idempotencyKey);
      noteAccepted(ctx, accepted);
      return create(SendResponseSchema, { acceptance: acceptanceToProto(accepted) });
    },
    async createRequest(req, ctx) {
      const accepted = await deps.commands.create(await project(ctx), createInputOf(req.input), req.idempotencyKey);
      noteAccepted(ctx, accepted);
      return create(CreateRequestResponseSchema, { acceptance: acceptanceToProto(accepted) });
    },
    async batchCreateRequests(req, ctx) {
      const items = req.requests.map((item) => ({ ...createInputOf(item), idempotencyKey: item.idempotencyKey }));
      const accepted = await deps.commands.batch(await project(ctx), items, req.idempotencyKey);
      noteAccepted(ctx, accepted);
      return create(BatchCreateRequestsResponseSchema, { requests: accepted.map(acceptanceToProto) });
    },
    async listRequests(req, ctx) {
      const page = await deps.queries.list(await project(ctx), {
        status: req.status,
        search: req.search,
        method: req.method,
        source: req.source,
        scheduleId: req.scheduleId,
        queue: req.queue,
        flowKey: req.flowKey,
        responseStatusCode: req.responseStatusCode,
        from: req.from,
        to: req.to,
        cursor: req.cursor,
        limit: req.limit,
      });
      return create(ListRequestsResponseSchema, {
        items: page.items.map(summaryToProto),
        nextCursor: page.nextCursor ?? undefined,
        historyRetentionDays: page.historyRetentionDays,
        historyCutoffAt: ts(page.historyCutoffAt),
        hasHiddenHistory: page.hasHiddenHistory,
      });
    },
    async getRequest(req, ctx) {
      const { request, attempts } = await deps.queries.get(await project(ctx), req.requestId);
      return create(GetRequestResponseSchema, { request: requestToProto(request, attempts) });
    },
    async listAttempts(req, ctx) {
      const attempts = await deps.queries.attempts(await project(ctx), req.requestId);
      return create(ListAttemptsResponseSchema, { attempts: attempts.map(attemptToProto) });
    },
    async cancelRequest(req, ctx) {
      const outcome = await deps.commands.cancel(await project(ctx), req.requestId);
      return create(CancelRequestResponseSchema, {
        id: outcome.id,
        status: outcome.status === 'cancelled' ? CancelStatus.CANCELLED : CancelStatus.CANCELLATION_REQUESTED,
      });
    },
    async replayRequest(req, ctx) {
      const accepted = await deps.commands.replay(await project(ctx), req.requestId, req.idempotencyKey);
      noteAccepted(ctx, accepted);
      return create(ReplayRequestResponseSchema, { acceptance: acceptanceToProto(accepted) });
    },
  };
}
