import { create } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { Authenticator } from '../../app/authenticate.js';
import type { BudgetCommands } from '../../app/budget-commands.js';
import type { BudgetQueries } from '../../app/budget-queries.js';
import type { Project } from '../../domain/project.js';
import {
  GetFlowKeyResponseSchema,
  GetQueueResponseSchema,
  ListFlowKeysResponseSchema,
  ListQueuesResponseSchema,
  PauseFlowKeyResponseSchema,
  PauseQueueResponseSchema,
  ResumeFlowKeyResponseSchema,
  ResumeQueueResponseSchema,
  SetFlowKeyLimitsResponseSchema,
  SetQueueLimitsResponseSchema,
  type BudgetService,
} from '../../gen/ferry/v1/budget_service_pb.js';
import { budgetLimitsInputOf, budgetToProto } from './budget-proto.js';
import { callerProject } from './caller-project.js';

export interface BudgetServiceDeps {
  readonly auth: Authenticator;
  readonly commands: BudgetCommands;
  readonly queries: BudgetQueries;
}

/**
 * The flow-control API for every protocol: queues and flow keys are the same budgets under two names, so each pair
 * of RPCs maps to the same use case with its kind. It only maps messages; rules live in the domain and the use cases.
 */
export function budgetServiceImpl(deps: BudgetServiceDeps): ServiceImpl<typeof BudgetService> {
  const project = (ctx: HandlerContext): Promise<Project> => callerProject(deps.auth, ctx);
  const { commands, queries } = deps;
  return {
    async listQueues(req, ctx) {
      const page = await queries.list(await project(ctx), 'queue', { limit: req.limit, cursor: req.cursor });
      return create(ListQueuesResponseSchema, { items: page.items.map(budgetToProto), nextCursor: page.nextCursor ?? undefined });
    },
    async getQueue(req, ctx) {
      return create(GetQueueResponseSchema, { queue: budgetToProto(await queries.get(await project(ctx), 'queue', req.name)) });
    },
    async setQueueLimits(req, ctx) {
      const queue = await commands.setLimits(await project(ctx), 'queue', req.name, budgetLimitsInputOf(req));
      return create(SetQueueLimitsResponseSchema, { queue: budgetToProto(queue) });
    },
    async pauseQueue(req, ctx) {
      return create(PauseQueueResponseSchema, { queue: budgetToProto(await commands.pause(await project(ctx), 'queue', req.name)) });
    },
    async resumeQueue(req, ctx) {
      return create(ResumeQueueResponseSchema, { queue: budgetToProto(await commands.resume(await project(ctx), 'queue', req.name)) });
    },
    async listFlowKeys(req, ctx) {
      const page = await queries.list(await project(ctx), 'flow_key', { limit: req.limit, cursor: req.cursor });
      return create(ListFlowKeysResponseSchema, { items: page.items.map(budgetToProto), nextCursor: page.nextCursor ?? undefined });
    },
    async getFlowKey(req, ctx) {
      return create(GetFlowKeyResponseSchema, { flowKey: budgetToProto(await queries.get(await project(ctx), 'flow_key', req.key)) });
    },
    async setFlowKeyLimits(req, ctx) {
      const flowKey = await commands.setLimits(await project(ctx), 'flow_key', req.key, budgetLimitsInputOf(req));
      return create(SetFlowKeyLimitsResponseSchema, { flowKey: budgetToProto(flowKey) });
    },
    async pauseFlowKey(req, ctx) {
      return create(PauseFlowKeyResponseSchema, { flowKey: budgetToProto(await commands.pause(await project(ctx), 'flow_key', req.key)) });
    },
    async resumeFlowKey(req, ctx) {
      return create(ResumeFlowKeyResponseSchema, { flowKey: budgetToProto(await commands.resume(await project(ctx), 'flow_key', req.key)) });
    },
  };
}
