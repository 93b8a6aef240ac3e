import { InvalidHeaderError } from './errors.js';

const SECRET_PREFIX = 'whsec_';
// Ferry makes 32-byte secrets and accepts imported ones of 24 to 64 bytes; anything else is a copy-paste accident.
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;

/** The bytes of canonical standard base64, or null for anything else (atob alone forgives missing padding). */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A Web Crypto key, named without the DOM library so the same source compiles with Node's types alone. */
export type VerificationKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;

/** An HMAC-SHA256 verification key for each `whsec_` secret, in the order given. */
export async function importSecrets(secrets: readonly string[]): Promise<VerificationKey[]> {
  return Promise.all(
    secrets.map((secret, index) => {
      const bytes = secret.startsWith(SECRET_PREFIX) ? decodeBase64(secret.slice(SECRET_PREFIX.length)) : null;
      if (bytes === null || bytes.length < MIN_SECRET_BYTES || bytes.length > MAX_SECRET_BYTES) {
        // The message names the position only: a secret never belongs in a log line.
        throw new InvalidHeaderError(null, `Signing secret ${index + 1} is not a Ferry signing secret (whsec_ followed by base64 of 24 to 64 bytes).`);
      }
      return globalThis.crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    }),
  );
}
