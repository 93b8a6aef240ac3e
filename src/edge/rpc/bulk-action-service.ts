import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { Authenticator } from '../../app/authenticate.js';
import type { BulkActionCommands } from '../../app/bulk-action-commands.js';
import type { BulkAction as DomainBulkAction } from '../../domain/bulk-action.js';
import type { Project } from '../../domain/project.js';
import {
  BulkActionKind,
  BulkActionSchema,
  BulkActionState,
  CancelBulkActionResponseSchema,
  CreateBulkActionOutcome,
  CreateBulkActionResponseSchema,
  GetBulkActionResponseSchema,
  ListBulkActionsResponseSchema,
  type BulkAction,
  type BulkActionService,
} from '../../gen/ferry/v1/bulk_action_service_pb.js';
import { callerProject } from './caller-project.js';
import { bulkActionInputOf } from './bulk-action-input.js';

export interface BulkActionServiceDeps {
  readonly auth: Authenticator;
  readonly commands: BulkActionCommands;
}

const KIND: Record<DomainBulkAction['action'], BulkActionKind> = { cancel: BulkActionKind.CANCEL, replay: BulkActionKind.REPLAY };
const STATE: Record<DomainBulkAction['state'], BulkActionState> = {
  running: BulkActionState.RUNNING,
  completed: BulkActionState.COMPLETED,
  cancelled: BulkActionState.CANCELLED,
};


/** The bulk action API for every protocol. It only maps messages; rules live in the domain and the use cases. */
export function bulkActionServiceImpl(deps: BulkActionServiceDeps): ServiceImpl<typeof BulkActionService> {
  const project = (ctx: HandlerContext): Promise<Project> => callerProject(deps.auth, ctx);
  const { commands } = deps;
  return {
    async createBulkAction(req, ctx) {
      const outcome = await commands.create(await project(ctx), bulkActionInputOf(req), req.idempotencyKey);
      return outcome.dryRun
        ? create(CreateBulkActionResponseSchema, { outcome: CreateBulkActionOutcome.DRY_RUN, result: { case: 'dryRun', value: { matched: outcome.matched } } })
        : create(CreateBulkActionResponseSchema, { outcome: CreateBulkActionOutcome.STARTED, result: { case: 'bulkAction', value: bulkActionToProto(outcome.action) } });
    },
    async getBulkAction(req, ctx) {
      return create(GetBulkActionResponseSchema, { bulkAction: bulkActionToProto(await commands.get(await project(ctx), req.id)) });
    },
    async listBulkActions(req, ctx) {
      const page = await commands.list(await project(ctx), { limit: req.limit, cursor: req.cursor });
      return create(ListBulkActionsResponseSchema, { items: page.items.map(bulkActionToProto), nextCursor: page.nextCursor ?? undefined });
    },
    async cancelBulkAction(req, ctx) {
      return create(CancelBulkActionResponseSchema, { bulkAction: bulkActionToProto(await commands.cancel(await project(ctx), req.id)) });
    },
  };
}

function bulkActionToProto(a: DomainBulkAction): BulkAction {
  return create(BulkActionSchema, {
    id: a.id,
    action: KIND[a.action],
    state: STATE[a.state],
    matched: a.matched,
    done: a.done,
    skipped: {
      notFound: a.skipped.not_found,
      ended: a.skipped.ended,
      active: a.skipped.active,
      alreadyCancelled: a.skipped.already_cancelled,
      invalidDefinition: a.skipped.invalid_definition,
    },
    createdAt: timestampFromMs(a.createdAt),
    updatedAt: timestampFromMs(a.updatedAt),
    completedAt: a.completedAt === null ? undefined : timestampFromMs(a.completedAt),
  });
}
