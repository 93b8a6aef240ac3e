import type { HandlerContext } from '@connectrpc/connect';
import type { Authenticator } from '../../app/authenticate.js';
import { FerryError } from '../../domain/errors.js';
import type { Project } from '../../domain/project.js';
import { noteProjectOf } from '../calls/notes.js';
import { requestHeader, requestHeaderLines } from '../request-headers.js';

/**
 * The project a call acts for, from its API key: every RPC of Ferry's API starts here, on every protocol.
 *
 * Authentication decides first. A call without a valid key is answered 401 whatever else is wrong with it, so a
 * caller without a key learns nothing of how its input is read; only then is input that could not be read
 * refused (see `noteProjectOf`), through the same call chain, logs and metrics as any other refusal.
 */
export function callerProject(auth: Authenticator, ctx: HandlerContext): Promise<Project> {
  const authenticated = auth.authenticate(requestHeader(ctx, 'authorization')).catch((err: unknown) => {
    // Looked at only once the key failed: a repeated header reads as its lines joined, which is never a valid key.
    if (err instanceof FerryError && err.code === 'UNAUTHENTICATED' && requestHeaderLines(ctx, 'authorization') > 1) {
      throw new FerryError('UNAUTHENTICATED', 'The Authorization header is given more than once; it takes a single value.', 'Authorization');
    }
    throw err;
  });
  return noteProjectOf(ctx, authenticated);
}
