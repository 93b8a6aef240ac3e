import type { Clock } from '../domain/clock.js';
import { FerryError } from '../domain/errors.js';
import { fingerprint } from '../domain/fingerprint.js';
import { canReplay, decideCancel, replayedCallbackFor } from '../domain/request-lifecycle/index.js';
import type { Project } from '../domain/project.js';
import { definitionOf, type Acceptance } from '../domain/request.js';
import {
  validateBatch,
  validateCreate,
  validateDefinition,
  validateIdempotencyKey,
  validateSend,
  type CreateInput,
  type SendInput,
} from '../domain/validation/index.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import type { RequestStore } from '../ports/requests.js';
import type { AcceptRequests, NewRequest } from './accept-requests.js';
import type { KeyedCall } from './idempotency-guard.js';
import { visibleRequest } from './visible-request.js';

export interface CommandOptions {
  readonly allowPrivateDestinations: boolean;
}

export type CancelOutcome = { readonly id: string; readonly status: 'cancellation_requested' | 'cancelled' };

const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** The request-changing operations of the API, in the domain's terms; every protocol calls these. */
export class RequestCommands {
  constructor(
    private readonly acceptor: AcceptRequests,
    private readonly requests: RequestStore,
    private readonly idempotency: IdempotencyStore,
    private readonly clock: Clock,
    private readonly options: CommandOptions,
  ) {}

  async send(project: Project, input: SendInput, idempotencyKey: string | undefined): Promise<Acceptance> {
    const now = this.clock.now();
    const validated = validateSend(input, this.validationOptions(now));
    const key = validateIdempotencyKey(idempotencyKey, false);
    const call = key === null ? null : keyed(key, fingerprint('send', input), IDEMPOTENCY_HEADER);
    const [accepted] = await this.acceptor.accept(project, call, [apiRequest(validated.definition, validated.deliverAt)]);
    return accepted!;
  }

  async create(project: Project, input: CreateInput, idempotencyKey: string | undefined): Promise<Acceptance> {
    const now = this.clock.now();
    const validated = validateCreate(input, this.validationOptions(now));
    const key = validateIdempotencyKey(idempotencyKey, false);
    // The same fingerprint as a batch item with this key, so single and batch creation deduplicate each other.
    const item = key === null ? null : keyed(key, fingerprint('create', input), IDEMPOTENCY_HEADER);
    const request = { ...apiRequest(validated.definition, validated.deliverAt), itemKey: item };
    const [accepted] = await this.acceptor.accept(project, null, [request]);
    return accepted!;
  }

  async batch(
    project: Project,
    items: ReadonlyArray<CreateInput & { idempotencyKey?: string }>,
    idempotencyKey: string | undefined,
  ): Promise<Acceptance[]> {
    const now = this.clock.now();
    const key = validateIdempotencyKey(idempotencyKey, true)!;
    const validated = validateBatch(items, this.validationOptions(now));
    const requests = validated.map((v, i): NewRequest => {
      const { idempotencyKey: _ignored, ...input } = items[i]!;
      const itemKey =
        v.idempotencyKey === null
          ? null
          : keyed(v.idempotencyKey, fingerprint('create', input), `requests[${i}].idempotency_key`);
      return { ...apiRequest(v.definition, v.deliverAt), itemKey };
    });
    const call = keyed(key, fingerprint('batch', items), IDEMPOTENCY_HEADER);
    return this.acceptor.accept(project, call, requests, { keyScope: await this.batchKeyScope(project.id, call, now) });
  }

  /**
   * Where a batch's own key lives: its namespace (see `batchKeyScope`), unless the same batch was first sent while
   * batch keys still shared the project's namespace, less than a day ago (a record's life) — then its retry must
   * find that record there, or an upgrade would accept the batch twice. A record of another input under the key
   * in the project's namespace is an item's or a single create's, and no longer concerns the batch.
   */
  private async batchKeyScope(projectId: string, call: KeyedCall, now: number): Promise<string> {
    const earlier = await this.idempotency.get(projectId, call.key, now);
    return earlier !== null && earlier.fingerprint === call.fingerprint ? projectId : batchKeyScope(projectId);
  }

  async replay(project: Project, requestId: string, idempotencyKey: string | undefined): Promise<Acceptance> {
    const now = this.clock.now();
    const key = validateIdempotencyKey(idempotencyKey, false);
    const original = await visibleRequest(this.requests, project, requestId, now);
    if (!canReplay(original)) {
      throw new FerryError('REQUEST_ACTIVE', `Request ${requestId} is ${original.status}; only completed or cancelled requests can be replayed.`);
    }
    validateDefinition(original, this.validationOptions(now));
    const call = key === null ? null : keyed(key, fingerprint('replay', requestId), IDEMPOTENCY_HEADER);
    // A replay of a callback is again a callback for the same request (and, like every callback, has none).
    const callbackFor = replayedCallbackFor(original);
    const request: NewRequest = {
      definition: definitionOf(original),
      deliverAt: null,
      source: callbackFor === null ? 'replay' : 'callback',
      callbackForRequestId: callbackFor,
      replayedFromRequestId: original.id,
      scheduleId: null,
      itemKey: null,
    };
    const [accepted] = await this.acceptor.accept(project, call, [request]);
    return accepted!;
  }

  async cancel(project: Project, requestId: string): Promise<CancelOutcome> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const now = this.clock.now();
      const current = await visibleRequest(this.requests, project, requestId, now);
      const decision = decideCancel(current, now);
      switch (decision.kind) {
        case 'already_cancelled':
          return { id: current.id, status: 'cancelled' };
        case 'completed':
          throw new FerryError('REQUEST_COMPLETED', `Request ${requestId} already ${current.status} and cannot be cancelled.`);
        case 'cancel_now':
        case 'cancel_after_attempt':
          if (decision.change === null) return { id: current.id, status: 'cancellation_requested' };
          // Not recorded: the request moved on (ended, or another cancel came first); decide again on what it is now.
          if (await this.requests.requestCancel(project.id, current.id, now)) return { id: current.id, status: 'cancellation_requested' };
      }
    }
    throw new FerryError('STORAGE_UNAVAILABLE', 'The request kept changing while it was being cancelled; retry.');
  }

  private validationOptions(now: number) {
    return { allowPrivateDestinations: this.options.allowPrivateDestinations, now };
  }
}

/**
 * The namespace of a batch's own Idempotency-Key. The header names the batch call; an item's `idempotency_key`
 * names one request, in the namespace that single creates share. Kept apart, a batch may use one key for itself
 * and one of its items, and a batch's key never collides with a request's. Project IDs hold no `/`.
 */
function batchKeyScope(projectId: string): string {
  return `${projectId}/batches`;
}

function keyed(key: string, print: string, field: string): KeyedCall {
  return { key, fingerprint: print, field };
}

function apiRequest(definition: NewRequest['definition'], deliverAt: number | null): NewRequest {
  return { definition, deliverAt, source: 'api', replayedFromRequestId: null, scheduleId: null, itemKey: null };
}
