// gRPC with @grpc/grpc-js: grpcJsServiceDefinition turns a service of @ferry/sdk/proto into the definition grpc-js
// builds clients from, so no generated grpc-js stubs are needed.
// Run: FERRY_GRPC_URL=http://localhost:8081 FERRY_API_KEY=… [DESTINATION_URL=https://…] npx tsx grpc-js.ts
import { create, type DescMessage, type DescMethodUnary, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { grpcJsServiceDefinition, RequestService, RequestStatus } from '@ferry/sdk/proto';

const RequestServiceClient = grpc.makeGenericClientConstructor(grpcJsServiceDefinition(RequestService), 'RequestService');
const target = new URL(process.env.FERRY_GRPC_URL ?? 'http://localhost:8081');
const credentials = target.protocol === 'https:' ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
const client = new RequestServiceClient(target.host, credentials);
const metadata = new grpc.Metadata();
metadata.set('authorization', `Bearer ${process.env.FERRY_API_KEY ?? ''}`);

type UnaryMethod = (request: unknown, metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null, response?: unknown) => void) => grpc.ClientUnaryCall;

/** A promise-returning function for one unary method, typed by its descriptor. */
function unary<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>): (init: MessageInitShape<I>) => Promise<MessageShape<O>> {
  const invoke = client[method.localName] as UnaryMethod;
  return (init) =>
    new Promise((resolve, reject) => {
      invoke.call(client, create(method.input, init), metadata, (error, response) => (error ? reject(error) : resolve(response as MessageShape<O>)));
    });
}
const createRequest = unary(RequestService.method.createRequest);
const getRequest = unary(RequestService.method.getRequest);

const { acceptance } = await createRequest({
  idempotencyKey: `invoice-${Date.now()}`,
  input: { url: process.env.DESTINATION_URL ?? 'https://example.com/webhooks/invoices', delay: '5m' },
});
console.log(`accepted ${acceptance!.id}`);

const { request } = await getRequest({ requestId: acceptance!.id });
console.log(`status ${RequestStatus[request!.status]}`);

try {
  await getRequest({ requestId: 'req_unknown' });
} catch (error) {
  console.log(`unknown id: ${grpc.status[(error as grpc.ServiceError).code]}`);
}
client.close();
