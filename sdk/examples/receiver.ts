// A receiver that accepts only deliveries Ferry signed for this project, answering 204 to those and 400 to the rest.
// Ferry delivers to HTTPS: put this behind your TLS terminator, or give it a certificate to serve HTTPS itself.
// Run: FERRY_SIGNING_SECRET=whsec_… PORT=3000 [TLS_CERT_FILE=… TLS_KEY_FILE=…] npx tsx receiver.ts
// During a secret rotation set FERRY_SIGNING_SECRET to both secrets, comma-separated.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { verifyDelivery, WebhookVerificationError } from '@ferry/sdk/webhooks';

const secrets = (process.env.FERRY_SIGNING_SECRET ?? '').split(',').filter(Boolean);
if (secrets.length === 0) throw new Error('Set FERRY_SIGNING_SECRET to the whsec_ secret `ferry project create` printed.');

// Ferry delivers at least once: an attempt can arrive twice after a crash, so work is keyed by the request id.
// A real receiver keeps this in its database, in the same transaction as the work.
const handled = new Set<string>();

async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
  // The raw bytes, before any JSON parsing: the signature covers them exactly as sent.
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  try {
    const delivery = await verifyDelivery({ secrets, headers: req.headers, body });
    if (handled.has(delivery.requestId)) {
      console.log(`duplicate ${delivery.requestId} attempt ${delivery.attempt}`);
    } else {
      handled.add(delivery.requestId);
      const kind = req.headers['content-type'] === 'application/json' ? `json ${JSON.stringify(JSON.parse(body.toString('utf8')))}` : `${body.length} bytes`;
      console.log(`verified ${delivery.requestId} attempt ${delivery.attempt} ${kind}`);
    }
    res.writeHead(204).end();
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.log(`refused ${error.name}: ${error.message}`);
    res.writeHead(400, { 'Content-Type': 'text/plain' }).end('signature check failed\n');
  }
}

const handler = (req: IncomingMessage, res: ServerResponse): void => {
  receive(req, res).catch((error: unknown) => {
    console.error(error);
    res.writeHead(500).end();
  });
};
const tls = process.env.TLS_CERT_FILE && process.env.TLS_KEY_FILE;
const server = tls
  ? createHttpsServer({ cert: readFileSync(process.env.TLS_CERT_FILE!), key: readFileSync(process.env.TLS_KEY_FILE!) }, handler)
  : createHttpServer(handler);
server.listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`listening on port ${(server.address() as AddressInfo).port} (${tls ? 'https' : 'http'})`);
});
process.once('SIGTERM', () => server.close());
