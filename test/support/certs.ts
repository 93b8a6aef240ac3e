import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: Buffer;
}

/** A throw-away self-signed certificate for 127.0.0.1 and localhost, made with the openssl command. */
export function selfSignedCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-cert-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ], { stdio: 'ignore' });
  return { certFile, keyFile, cert: readFileSync(certFile) };
}

let shared: TestCertificate | undefined;

/**
 * One certificate per test process, so every destination a test starts is trusted through the same CA file
 * (NODE_EXTRA_CA_CERTS of a spawned server, or a transport's `ca`), and openssl runs only once.
 */
export function sharedSelfSignedCertificate(): TestCertificate {
  shared ??= selfSignedCertificate();
  return shared;
}
