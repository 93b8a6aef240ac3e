import { create, fromBinary, toBinary, type DescFile, type DescService, type MessageInitShape } from '@bufbuild/protobuf';
import { nestedTypes } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Code, type ServiceImpl } from '@connectrpc/connect';
import {
  ServerReflection,
  ServerReflectionRequestSchema,
  ServerReflectionResponseSchema,
  type ServerReflectionRequest,
} from '../../gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../../gen/grpc/reflection/v1alpha/reflection_pb.js';

type Answer = MessageInitShape<typeof ServerReflectionResponseSchema>;

/**
 * What server reflection knows: every served service and the files that declare them, with everything they import
 * (Ferry's own files, the option and well-known types), all from the descriptors compiled into the generated code.
 */
class DescriptorIndex {
  private readonly files = new Map<string, DescFile>();
  /** Fully qualified names of services, methods, messages, enums and extensions, to the file declaring each. */
  private readonly symbols = new Map<string, DescFile>();
  private readonly extensionsOf = new Map<string, Map<number, DescFile>>();
  readonly serviceNames: readonly string[];

  constructor(services: readonly DescService[], files: readonly DescFile[]) {
    this.serviceNames = services.map((s) => s.typeName);
    for (const s of services) this.add(s.file);
    for (const f of files) this.add(f);
  }

  fileNamed(name: string): DescFile | undefined {
    return this.files.get(name);
  }

  fileDeclaring(symbol: string): DescFile | undefined {
    return this.symbols.get(symbol);
  }

  fileExtending(typeName: string, number: number): DescFile | undefined {
    return this.extensionsOf.get(typeName)?.get(number);
  }

  extensionNumbers(typeName: string): number[] | undefined {
    const numbers = this.extensionsOf.get(typeName);
    return numbers && [...numbers.keys()].sort((a, b) => a - b);
  }

  /** The file's descriptor first, then those of everything it imports, directly or not, each once. */
  withDependencies(file: DescFile): Uint8Array[] {
    const seen = new Set<DescFile>();
    const visit = (f: DescFile): void => {
      if (seen.has(f)) return;
      seen.add(f);
      f.dependencies.forEach(visit);
    };
    visit(file);
    return [...seen].map((f) => toBinary(FileDescriptorProtoSchema, f.proto));
  }

  private add(file: DescFile): void {
    if (this.files.has(file.proto.name)) return;
    this.files.set(file.proto.name, file);
    for (const type of nestedTypes(file)) {
      this.symbols.set(type.typeName, file);
      if (type.kind === 'service') for (const m of type.methods) this.symbols.set(`${type.typeName}.${m.name}`, file);
      if (type.kind === 'extension') {
        const byNumber = this.extensionsOf.get(type.extendee.typeName) ?? new Map<number, DescFile>();
        byNumber.set(type.number, file);
        this.extensionsOf.set(type.extendee.typeName, byNumber);
      }
    }
    file.dependencies.forEach((d) => this.add(d));
  }
}

function answer(index: DescriptorIndex, req: ServerReflectionRequest): Answer {
  const base = { validHost: req.host, originalRequest: req };
  const files = (file: DescFile | undefined, what: string): Answer =>
    file === undefined
      ? { ...base, messageResponse: { case: 'errorResponse', value: { errorCode: Code.NotFound, errorMessage: `${what} is not known.` } } }
      : { ...base, messageResponse: { case: 'fileDescriptorResponse', value: { fileDescriptorProto: index.withDependencies(file) } } };
  const r = req.messageRequest;
  switch (r.case) {
    case 'listServices':
      return { ...base, messageResponse: { case: 'listServicesResponse', value: { service: index.serviceNames.map((name) => ({ name })) } } };
    case 'fileByFilename':
      return files(index.fileNamed(r.value), `The file ${r.value}`);
    case 'fileContainingSymbol':
      return files(index.fileDeclaring(r.value), `The symbol ${r.value}`);
    case 'fileContainingExtension':
      return files(index.fileExtending(r.value.containingType, r.value.extensionNumber), `Extension ${r.value.extensionNumber} of ${r.value.containingType}`);
    case 'allExtensionNumbersOfType': {
      const numbers = index.extensionNumbers(r.value) ?? (index.fileDeclaring(r.value) ? [] : undefined);
      if (numbers === undefined) return files(undefined, `The type ${r.value}`);
      return { ...base, messageResponse: { case: 'allExtensionNumbersResponse', value: { baseTypeName: r.value, extensionNumber: numbers } } };
    }
    default:
      return { ...base, messageResponse: { case: 'errorResponse', value: { errorCode: Code.Unimplemented, errorMessage: 'Unknown reflection request.' } } };
  }
}

/**
 * gRPC server reflection, under its current name (grpc.reflection.v1) and the older grpc.reflection.v1alpha that
 * many tools still call, for `services` plus the two reflection services themselves. `files` adds files no
 * service imports, such as those of error details, so that tools can decode them too. Written here because no
 * maintained reflection package exists for Connect; it answers from descriptors already in memory.
 */
export function reflectionServices(
  services: readonly DescService[],
  files: readonly DescFile[] = [],
): [v1: ServiceImpl<typeof ServerReflection>, v1alpha: ServiceImpl<typeof v1alpha.ServerReflection>] {
  const index = new DescriptorIndex([...services, ServerReflection, v1alpha.ServerReflection], files);
  return [
    {
      async *serverReflectionInfo(requests) {
        for await (const req of requests) yield answer(index, req);
      },
    },
    {
      // The v1alpha messages are the v1 messages under another package, field for field: they cross over as bytes.
      async *serverReflectionInfo(requests) {
        for await (const req of requests) {
          const asV1 = fromBinary(ServerReflectionRequestSchema, toBinary(v1alpha.ServerReflectionRequestSchema, req));
          const reply = toBinary(ServerReflectionResponseSchema, create(ServerReflectionResponseSchema, answer(index, asV1)));
          yield fromBinary(v1alpha.ServerReflectionResponseSchema, reply);
        }
      },
    },
  ];
}
