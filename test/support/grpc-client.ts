import { create, fromBinary, toBinary, type DescMessage, type DescService, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { BinaryReader } from '@bufbuild/protobuf/wire';
import * as grpc from '@grpc/grpc-js';
import { ErrorDetailSchema } from '../../src/gen/ferry/v1/errors_pb.js';

export type GrpcResult<O extends DescMessage> =
  | { ok: true; value: MessageShape<O> }
  | { ok: false; error: grpc.ServiceError };

/**
 * A plain @grpc/grpc-js client over the generated descriptors, the way an internal service would call Ferry:
 * no Connect code on the client side.
 */
export class GrpcTestClient {
  private readonly client: grpc.Client;

  constructor(
    private readonly service: DescService,
    address: string,
    private readonly apiKey: string,
    credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
  ) {
    this.client = new grpc.Client(address, credentials);
  }

  call<I extends DescMessage, O extends DescMessage>(
    methodName: string,
    input: I,
    output: O,
    init: MessageInitShape<I>,
    opts: { apiKey?: string | null } = {},
  ): Promise<GrpcResult<O>> {
    const method = this.service.methods.find((m) => m.name === methodName);
    if (!method) throw new Error(`no method ${methodName}`);
    const metadata = new grpc.Metadata();
    const key = opts.apiKey === undefined ? this.apiKey : opts.apiKey;
    if (key !== null) metadata.set('authorization', `Bearer ${key}`);
    return new Promise((resolve) => {
      this.client.makeUnaryRequest(
        `/${this.service.typeName}/${method.name}`,
        (m: MessageShape<I>) => Buffer.from(toBinary(input, m)),
        (b: Buffer) => fromBinary(output, b),
        create(input, init),
        metadata,
        (error, value) => resolve(error ? { ok: false, error } : { ok: true, value: value! }),
      );
    });
  }

  close(): void {
    this.client.close();
  }
}

/** The ErrorDetail carried in a gRPC error's `grpc-status-details-bin` (a google.rpc.Status). */
export function grpcErrorDetail(error: grpc.ServiceError): { code: string; field: string } | undefined {
  const bin = error.metadata.get('grpc-status-details-bin')[0];
  if (!(bin instanceof Buffer)) return undefined;
  const status = new BinaryReader(bin);
  while (status.pos < status.len) {
    const [field, wireType] = status.tag();
    if (field !== 3) {
      status.skip(wireType);
      continue;
    }
    const any = new BinaryReader(status.bytes());
    let typeUrl = '';
    let value: Uint8Array = new Uint8Array();
    while (any.pos < any.len) {
      const [f, w] = any.tag();
      if (f === 1) typeUrl = any.string();
      else if (f === 2) value = any.bytes();
      else any.skip(w);
    }
    if (typeUrl.endsWith('/ferry.v1.ErrorDetail')) {
      const detail = fromBinary(ErrorDetailSchema, value);
      return { code: detail.code, field: detail.field };
    }
  }
  return undefined;
}
