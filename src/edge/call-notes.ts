import { createContextKey, type ContextValues, type HandlerContext } from '@connectrpc/connect';
import type { FerryError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import type { Acceptance } from '../domain/request.js';
import { GatewayCallContext } from './http/call-context.js';

/*
 * What a service learns during a call that the call observer reports once the call is answered: the project it
 * authenticated as, and what an accept call answered. A JSON call keeps them in fields of its context; a gRPC or
 * Connect call in the context values that Connect already made for it. Neither allocates anything. The edge also
 * notes here why a call's input could not be read, for the service to answer once the caller authenticated.
 */

const PROJECT = createContextKey<string | undefined>(undefined, { description: 'ferry: the project a call authenticated as' });
const ACCEPTED = createContextKey<Acceptance | readonly Acceptance[] | undefined>(undefined, { description: 'ferry: what an accept call answered' });
const UNREADABLE = createContextKey<FerryError | undefined>(undefined, { description: 'ferry: why the request message could not be read' });

export function noteProject(ctx: HandlerContext, projectId: string): void {
  if (ctx instanceof GatewayCallContext) ctx.projectId = projectId;
  else ctx.values.set(PROJECT, projectId);
}

export function noteAccepted(ctx: HandlerContext, accepted: Acceptance | readonly Acceptance[]): void {
  if (ctx instanceof GatewayCallContext) ctx.accepted = accepted;
  else ctx.values.set(ACCEPTED, accepted);
}

/** The notes of a gRPC or Connect call, from its context values. */
export function notedProject(values: ContextValues): string | undefined {
  return values.get(PROJECT);
}

export function notedAccepted(values: ContextValues): Acceptance | readonly Acceptance[] | undefined {
  return values.get(ACCEPTED);
}

/**
 * The project an authentication resolves to, noted on the call as it resolves. Only then is input that could not
 * be read refused (see `noteUnreadableInput`): a caller without a valid key learns nothing of how its input is read.
 */
export function noteProjectOf(ctx: HandlerContext, authenticated: Promise<Project>): Promise<Project> {
  return authenticated.then((project) => {
    noteProject(ctx, project.id);
    const unreadable = unreadableInput(ctx);
    if (unreadable !== undefined) throw unreadable;
    return project;
  });
}

/**
 * Notes on a gRPC or Connect call, before Connect builds its context, that its request message could not be read:
 * the service is handed an empty message and answers `err` once the caller authenticated (see `callerProject`).
 */
export function noteUnreadableInput(values: ContextValues, err: FerryError): void {
  values.set(UNREADABLE, err);
}

/** Why the call's request message could not be read, on any protocol; undefined when it was read. */
export function unreadableInput(ctx: HandlerContext): FerryError | undefined {
  return ctx instanceof GatewayCallContext ? ctx.unreadable : ctx.values.get(UNREADABLE);
}
