import type { types } from 'cassandra-driver';
import type { SigningSecret } from '../../domain/project.js';
import { plainBytes } from './secrets-bytes.js';
import { millis } from './session.js';

export function signingSecretFromRow(projectId: string, row: types.Row): SigningSecret {
  return {
    projectId,
    secret: plainBytes(row.get('secret') as Uint8Array),
    createdAt: millis(row.get('created_at'))!,
    retiresAt: millis(row.get('retires_at')),
  };
}

/**
 * Newest first. The embedded store orders secrets created in the same millisecond by insertion, latest first; the
 * rows here keep no insertion order, but each rotation retires the current secrets, so the current one leads and
 * then the one retiring last, which is the same order unless two rotations retired at the same time.
 */
export function newestFirst(a: SigningSecret, b: SigningSecret): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  if (a.retiresAt === b.retiresAt) return 0;
  if (a.retiresAt === null) return -1;
  if (b.retiresAt === null) return 1;
  return b.retiresAt - a.retiresAt;
}
