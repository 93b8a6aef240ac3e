import { FerryError, quoteInput } from '../domain/errors.js';
import { isRequestId } from '../domain/ids.js';
import { isHiddenByRetention, retentionCutoff } from '../domain/request-lifecycle/index.js';
import type { Project } from '../domain/project.js';
import type { StoredRequest } from '../domain/request.js';
import { existsAt } from '../domain/schedule/enqueued-ahead.js';
import type { RequestStore } from '../ports/requests.js';

/**
 * The request when it exists in the project and is still within its retention. A malformed ID, another
 * project's request, an expired one and a schedule's occurrence before its instant (see `existsAt`) are all the
 * same 404, so none of them reveals anything.
 */
export async function visibleRequest(
  requests: RequestStore,
  project: Project,
  requestId: string,
  now: number,
): Promise<StoredRequest> {
  const found = isRequestId(requestId) ? await requests.get(project.id, requestId) : null;
  if (found === null || !existsAt(found, now) || isHiddenByRetention(found, retentionCutoff(now, project.retentionDays))) {
    throw new FerryError('NOT_FOUND', `No request ${quoteInput(requestId)} in this project.`);
  }
  return found;
}
