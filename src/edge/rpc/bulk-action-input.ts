import type { BulkActionInput, BulkFilterInput } from '../../domain/validation/index.js';
import { BulkActionKind, type BulkActionFilter, type CreateBulkActionRequest } from '../../gen/ferry/v1/bulk_action_service_pb.js';


const KIND_NAMES: Partial<Record<BulkActionKind, string>> = { [BulkActionKind.CANCEL]: 'cancel', [BulkActionKind.REPLAY]: 'replay' };

/** The create call's input in the domain's terms: no IDs given reads as absent, an unset filter as none. */
export function bulkActionInputOf(m: CreateBulkActionRequest): BulkActionInput & { dryRun: boolean } {
  const action = KIND_NAMES[m.action];
  return {
    ...(action !== undefined ? { action } : {}),
    ...(m.ids.length > 0 ? { ids: m.ids } : {}),
    ...(m.filter !== undefined ? { filter: filterOf(m.filter) } : {}),
    dryRun: m.dryRun,
  };
}

function filterOf(f: BulkActionFilter): BulkFilterInput {
  const out: BulkFilterInput = {};
  if (f.status !== undefined) out.status = f.status;
  if (f.search !== undefined) out.search = f.search;
  if (f.method !== undefined) out.method = f.method;
  if (f.source !== undefined) out.source = f.source;
  if (f.scheduleId !== undefined) out.scheduleId = f.scheduleId;
  if (f.queue !== undefined) out.queue = f.queue;
  if (f.flowKey !== undefined) out.flowKey = f.flowKey;
  if (f.responseStatusCode !== undefined) out.responseStatusCode = f.responseStatusCode;
  if (f.from !== undefined) out.from = f.from;
  if (f.to !== undefined) out.to = f.to;
  return out;
}
