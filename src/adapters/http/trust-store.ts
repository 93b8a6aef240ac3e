import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

/**
 * A secure context that trusts one extra CA on top of what Node trusts by default. Passing `ca` alone would replace
 * the default roots, so they are listed again: the bundled roots plus NODE_EXTRA_CA_CERTS, which Node reads only
 * for its own default context. Built once, because parsing the full root list per connection is costly.
 * Returns undefined when nothing is added, so Node's own default context (and any --use-system-ca) stays in force.
 */
export function secureContextWithExtraCa(extraCa: string | Buffer | undefined): SecureContext | undefined {
  if (extraCa === undefined) return undefined;
  const ca: Array<string | Buffer> = [...rootCertificates];
  const extraFile = process.env['NODE_EXTRA_CA_CERTS'];
  if (extraFile) {
    try {
      ca.push(readFileSync(extraFile));
    } catch {
      // Node itself only warns about an unreadable file and goes on without it.
    }
  }
  ca.push(extraCa);
  return createSecureContext({ ca });
}
