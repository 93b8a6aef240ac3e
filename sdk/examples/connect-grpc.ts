// gRPC with Connect: the descriptors of @ferry/sdk/proto and a Connect client over Ferry's gRPC port (plaintext
// HTTP/2 here; use an https:// URL for TLS).
// Run: FERRY_GRPC_URL=http://localhost:8081 FERRY_API_KEY=… [DESTINATION_URL=https://…] npx tsx connect-grpc.ts
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { RequestService, RequestStatus } from '@ferry/sdk/proto';

const apiKey = process.env.FERRY_API_KEY ?? '';
const authenticate: Interceptor = (next) => (req) => {
  req.header.set('Authorization', `Bearer ${apiKey}`);
  return next(req);
};
const transport = createGrpcTransport({ baseUrl: process.env.FERRY_GRPC_URL ?? 'http://localhost:8081', interceptors: [authenticate] });
const requests = createClient(RequestService, transport);

const { acceptance } = await requests.send({
  url: process.env.DESTINATION_URL ?? 'https://example.com/webhooks/orders',
  body: new TextEncoder().encode(JSON.stringify({ order: 42 })),
  contentType: 'application/json',
  retry: 3,
  delay: '1m',
});
console.log(`accepted ${acceptance!.id}`);

const { request } = await requests.getRequest({ requestId: acceptance!.id });
console.log(`status ${RequestStatus[request!.status]}, ${request!.attempts.length} attempts`);

try {
  await requests.getRequest({ requestId: 'req_unknown' });
} catch (error) {
  console.log(`unknown id: ${Code[ConnectError.from(error).code]}`);
}
