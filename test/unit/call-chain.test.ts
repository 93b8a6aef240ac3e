import { Code, ConnectError, createContextValues, type HandlerContext } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { FerryError } from '../../src/domain/errors.js';
import type { Project } from '../../src/domain/project.js';
import type { Acceptance } from '../../src/domain/request.js';
import { unaryChain, type ChainOptions } from '../../src/edge/calls/chain.js';
import { CallFailure, succeeded } from '../../src/edge/calls/failure.js';
import { ApiCallGate } from '../../src/edge/calls/gate.js';
import { noteAccepted, noteProjectOf, noteUnreadableInput } from '../../src/edge/calls/notes.js';
import type { AnswerStage, UnaryCall } from '../../src/edge/calls/unary-call.js';
import { answerConnect, type ConnectCall } from '../../src/edge/rpc/connect-answer.js';
import { ErrorDetailSchema } from '../../src/gen/ferry/v1/errors_pb.js';
import { StorageUnavailable } from '../../src/ports/errors.js';
import type { ApiCall } from '../../src/ports/telemetry.js';

const accepted: Acceptance = { id: 'req_1', projectId: 'prj_1', replayedFromRequestId: null, status: 'queued', scheduledAt: null, createdAt: 0 };
const project = { id: 'prj_1' } as Project;

function context(): HandlerContext {
  return { values: createContextValues(), responseHeader: new Headers() } as HandlerContext;
}

function call(ctx = context()): ConnectCall {
  return { protocol: 'grpc', route: 'ferry.v1.RequestService/Send', rpc: 'ferry.v1.RequestService/Send', requestId: 'rid', startedAt: performance.now(), context: ctx, answer: undefined, request: {} };
}

/** An answer stage that records what reached it: the response, or the failure the errors stage made. */
function recordingAnswer(seen: unknown[], status = 202): AnswerStage<UnaryCall, void> {
  return (next) => async (c) => {
    try {
      seen.push(await next(c));
      c.answer = succeeded(status);
    } catch (err) {
      seen.push(err);
      if (err instanceof CallFailure) c.answer = err.answer;
    }
  };
}

function chainWith(service: (c: UnaryCall) => Promise<unknown>, opts: Partial<ChainOptions> = {}) {
  const observed: ApiCall[] = [];
  const seen: unknown[] = [];
  const chain: ChainOptions = { observer: { observeCall: (c) => void observed.push(c) }, gate: undefined, ...opts };
  return { run: unaryChain(chain, recordingAnswer(seen), service), observed, seen };
}

describe('the unary call chain', () => {
  it('reports a success once answered, with what the service noted', async () => {
    const { run, observed, seen } = chainWith(async (c) => {
      await noteProjectOf(c.context, Promise.resolve(project));
      noteAccepted(c.context, accepted);
      return { ok: true };
    });
    await run(call());
    expect(seen).toEqual([{ ok: true }]);
    expect(observed).toHaveLength(1);
    expect(observed[0]).toMatchObject({ protocol: 'grpc', route: 'ferry.v1.RequestService/Send', status: 202, code: undefined, requestId: 'rid', projectId: 'prj_1', accepted, error: undefined });
  });

  it('maps whatever the service throws to the catalogue before the protocol answers it', async () => {
    const thrown = [new FerryError('NOT_FOUND', 'No such request.', 'request_id'), new StorageUnavailable('down'), new Error('bug')];
    for (const err of thrown) {
      const { run, observed, seen } = chainWith(async (c) => {
        await noteProjectOf(c.context, Promise.resolve(project));
        noteAccepted(c.context, accepted);
        throw err;
      });
      await run(call());
      expect(seen[0]).toBeInstanceOf(CallFailure);
      expect((seen[0] as CallFailure).thrown).toBe(err);
      expect(observed[0]).toMatchObject({ projectId: 'prj_1', accepted: undefined, error: err });
    }
    const codes = async (err: unknown) => {
      const { run, observed } = chainWith(async () => Promise.reject(err));
      await run(call());
      return [observed[0]!.status, observed[0]!.code, observed[0]!.field];
    };
    expect(await codes(thrown[0])).toEqual([404, 'NOT_FOUND', 'request_id']);
    expect(await codes(thrown[1])).toEqual([503, 'STORAGE_UNAVAILABLE', undefined]);
    expect(await codes(thrown[2])).toEqual([500, 'INTERNAL', undefined]);
  });

  it('refuses at the gate while draining, before the service runs or the caller is looked at', async () => {
    const gate = new ApiCallGate();
    let ran = false;
    const { run, observed, seen } = chainWith(
      async () => {
        ran = true;
      },
      { gate },
    );
    await gate.close();
    const refused = call();
    noteUnreadableInput(refused.context.values, new FerryError('INVALID_JSON', 'Not JSON.'));
    await run(refused);
    expect(ran).toBe(false);
    expect((seen[0] as CallFailure).ferry).toMatchObject({ code: 'SHUTTING_DOWN', retryAfterSeconds: 1 });
    expect(observed[0]).toMatchObject({ status: 503, code: 'SHUTTING_DOWN', projectId: undefined });
  });

  it('refuses input that could not be read once the caller has authenticated, not before', async () => {
    const unreadable = new FerryError('INVALID_JSON', 'Not JSON.');
    const authenticating = (auth: Promise<Project>) => chainWith(async (c) => noteProjectOf(c.context, auth));
    const denied = authenticating(Promise.reject(new FerryError('UNAUTHENTICATED', 'No key.')));
    const first = call();
    noteUnreadableInput(first.context.values, unreadable);
    await denied.run(first);
    expect(denied.observed[0]).toMatchObject({ code: 'UNAUTHENTICATED', projectId: undefined });

    const known = authenticating(Promise.resolve(project));
    const second = call();
    noteUnreadableInput(second.context.values, unreadable);
    await known.run(second);
    expect(known.observed[0]).toMatchObject({ code: 'INVALID_JSON', projectId: 'prj_1', error: unreadable });
  });

  it('refuses unreadable input also when a service answered without authenticating', async () => {
    const { run, observed } = chainWith(async () => ({}));
    const c = call();
    noteUnreadableInput(c.context.values, new FerryError('INVALID_PROTOBUF', 'Not a message.'));
    await run(c);
    expect(observed[0]).toMatchObject({ status: 422, code: 'INVALID_PROTOBUF' });
  });

  it('reports nothing when the protocol answered nothing (the client left)', async () => {
    const observed: ApiCall[] = [];
    const silent: AnswerStage<UnaryCall, void> = (next) => async (c) => void (await next(c).catch(() => undefined));
    await unaryChain({ observer: { observeCall: (c) => void observed.push(c) }, gate: undefined }, silent, async () => ({}))(call());
    expect(observed).toEqual([]);
  });
});

describe('the Connect answer stage', () => {
  const observed: ApiCall[] = [];
  const chain: ChainOptions = { observer: { observeCall: (c) => void observed.push(c) }, gate: undefined };

  it('sends the request ID as a response header on success', async () => {
    const c = call();
    expect(await unaryChain(chain, answerConnect<ConnectCall>, async () => ({ done: 1 }))(c)).toEqual({ done: 1 });
    expect(c.context.responseHeader.get('ferry-request-id')).toBe('rid');
    expect(c.answer).toMatchObject({ status: 200, code: undefined });
  });

  it('answers a catalogue error as a ConnectError with its ErrorDetail, Retry-After and the request ID', async () => {
    const refusal = new FerryError('MONTHLY_ALLOWANCE_EXCEEDED', 'No allowance left.', undefined, 30);
    const c = call();
    const err = await unaryChain(chain, answerConnect<ConnectCall>, () => Promise.reject(refusal))(c).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    const answered = err as ConnectError;
    expect(answered.code).toBe(Code.ResourceExhausted);
    expect(answered.metadata.get('ferry-request-id')).toBe('rid');
    expect(answered.metadata.get('retry-after')).toBe('30');
    expect(answered.findDetails(ErrorDetailSchema)[0]).toMatchObject({ code: 'MONTHLY_ALLOWANCE_EXCEEDED' });
    expect(c.context.responseHeader.has('ferry-request-id')).toBe(false);
    expect(c.answer).toMatchObject({ status: 429, code: 'MONTHLY_ALLOWANCE_EXCEEDED', thrown: refusal });
  });

  it('passes a ConnectError on as it is, reported by its own code', async () => {
    const unknown = new ConnectError('Unknown service "x".', Code.NotFound);
    const c = call();
    await expect(unaryChain(chain, answerConnect<ConnectCall>, () => Promise.reject(unknown))(c)).rejects.toBe(unknown);
    expect(unknown.metadata.get('ferry-request-id')).toBe('rid');
    expect(c.answer).toMatchObject({ status: 404, code: 'not_found' });
  });
});
