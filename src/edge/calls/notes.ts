import { createContextKey, type ContextValues, type HandlerContext } from '@connectrpc/connect';
import type { FerryError } from '../../domain/errors.js';
import type { Project } from '../../domain/project.js';
import type { Acceptance } from '../../domain/request.js';
import type { SharedStage } from './unary-call.js';

/**
 * What a service learns during a call that the observer reports once the call is answered (the project it
 * authenticated as, what an accept call answered), and why the protocol could not read the call's input. One
 * object per call, kept under one key of the context values that every protocol's HandlerContext carries.
 */
export class CallNotes {
  projectId: string | undefined = undefined;
  accepted: Acceptance | readonly Acceptance[] | undefined = undefined;
  /** Why the request message could not be read; the service refuses it once the caller has authenticated. */
  unreadable: FerryError | undefined = undefined;
}

const NOTES = createContextKey<CallNotes | undefined>(undefined, { description: 'ferry: what the call noted for its observer' });

/** The notes of a call, made on first use: the protocol may note unreadable input before the chain runs. */
export function notesOf(values: ContextValues): CallNotes {
  let notes = values.get(NOTES);
  if (notes === undefined) values.set(NOTES, (notes = new CallNotes()));
  return notes;
}

/** The notes, if the call got as far as making them (a call the gate refused has none). */
export function notesIfAny(values: ContextValues): CallNotes | undefined {
  return values.get(NOTES);
}

/**
 * The notes stage: every call has its notes before the service runs. Input that could not be read is refused by
 * the service once the caller authenticated (`noteProjectOf`); a service that answered without authenticating
 * would have been handed an empty message, so its answer is replaced by the refusal here.
 */
export const notesStage: SharedStage = (next) => async (call) => {
  const notes = notesOf(call.context.values);
  const response = await next(call);
  if (notes.unreadable !== undefined && notes.projectId === undefined) throw notes.unreadable;
  return response;
};

export function noteProject(ctx: HandlerContext, projectId: string): void {
  notesOf(ctx.values).projectId = projectId;
}

export function noteAccepted(ctx: HandlerContext, accepted: Acceptance | readonly Acceptance[]): void {
  notesOf(ctx.values).accepted = accepted;
}

/**
 * The project an authentication resolves to, noted on the call as it resolves. Only then is input that could not
 * be read refused (see `noteUnreadableInput`): a caller without a valid key learns nothing of how its input is read.
 */
export function noteProjectOf(ctx: HandlerContext, authenticated: Promise<Project>): Promise<Project> {
  return authenticated.then((project) => {
    const notes = notesOf(ctx.values);
    notes.projectId = project.id;
    if (notes.unreadable !== undefined) throw notes.unreadable;
    return project;
  });
}

/**
 * Notes, before the service runs, that the call's request message could not be read: the service is handed an
 * empty message and answers `err` once the caller authenticated (see `callerProject`). The JSON gateway notes it
 * as it binds the request, the Connect input reader before Connect builds the call's context.
 */
export function noteUnreadableInput(values: ContextValues, err: FerryError): void {
  notesOf(values).unreadable = err;
}

/** Why the call's request message could not be read, on any protocol; undefined when it was read. */
export function unreadableInput(ctx: HandlerContext): FerryError | undefined {
  return notesIfAny(ctx.values)?.unreadable;
}
