import { fromBinary, toBinary, type DescMessage, type DescMethod, type DescService, type MessageShape } from '@bufbuild/protobuf';

/**
 * Node's `Buffer` where the caller's types know it (any project using `@grpc/grpc-js` has Node's types), else
 * `Uint8Array`. It keeps the definition assignable to grpc-js's `ServiceDefinition`, whose serializers return
 * `Buffer`, without this package depending on Node's types.
 */
export type NodeBuffer = typeof globalThis extends { Buffer: { alloc(size: number): infer B } } ? B : Uint8Array;

/** One method in the shape `@grpc/grpc-js` expects (its `MethodDefinition`). */
export interface GrpcJsMethodDefinition<I extends DescMessage = DescMessage, O extends DescMessage = DescMessage> {
  /** `/ferry.v1.RequestService/Send`: the HTTP/2 path of the method. */
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestSerialize: (value: MessageShape<I>) => NodeBuffer;
  requestDeserialize: (bytes: Uint8Array) => MessageShape<I>;
  responseSerialize: (value: MessageShape<O>) => NodeBuffer;
  responseDeserialize: (bytes: Uint8Array) => MessageShape<O>;
  /** The method's name in the proto (`Send`); grpc-js also exposes the method under it. */
  originalName: string;
}

/** Every method of a service under its lower-camel-case name (`send`, `createRequest`), as grpc-js expects. */
export type GrpcJsServiceDefinition = Record<string, GrpcJsMethodDefinition>;

interface BufferConstructorLike {
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): NodeBuffer;
}

/**
 * Describes a service of `@ferry/sdk/proto` for `@grpc/grpc-js` (`makeGenericClientConstructor`, `Server.addService`),
 * so plain grpc-js code can call Ferry with the generated messages and no generated grpc-js stubs. Messages are
 * encoded with `toBinary` and decoded with `fromBinary` from `@bufbuild/protobuf`.
 */
export function grpcJsServiceDefinition(service: DescService): GrpcJsServiceDefinition {
  const definition: GrpcJsServiceDefinition = {};
  for (const method of service.methods) definition[method.localName] = methodDefinition(service, method);
  return definition;
}

function methodDefinition(service: DescService, method: DescMethod): GrpcJsMethodDefinition {
  return {
    path: `/${service.typeName}/${method.name}`,
    requestStream: method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming',
    responseStream: method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming',
    requestSerialize: (value) => asBuffer(toBinary(method.input, value)),
    requestDeserialize: (bytes) => fromBinary(method.input, bytes),
    responseSerialize: (value) => asBuffer(toBinary(method.output, value)),
    responseDeserialize: (bytes) => fromBinary(method.output, bytes),
    originalName: method.name,
  };
}

/** grpc-js frames messages with Buffer methods, so hand it a Buffer view of the bytes (no copy) where one exists. */
function asBuffer(bytes: Uint8Array): NodeBuffer {
  const nodeBuffer = (globalThis as { Buffer?: BufferConstructorLike }).Buffer;
  return nodeBuffer ? nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : (bytes as NodeBuffer);
}
