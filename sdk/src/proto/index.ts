// The descriptors of Ferry's public gRPC and Connect API, generated from proto/ferry/v1 by protoc-gen-es: use them
// with @connectrpc/connect (createClient(RequestService, transport)) or, through grpcJsServiceDefinition, with
// @grpc/grpc-js. Needs the optional peer dependency @bufbuild/protobuf.
export * from '../gen/ferry/v1/request_service_pb.js';
export * from '../gen/ferry/v1/schedule_service_pb.js';
export * from '../gen/ferry/v1/budget_service_pb.js';
export * from '../gen/ferry/v1/bulk_action_service_pb.js';
export * from '../gen/ferry/v1/requests_pb.js';
export * from '../gen/ferry/v1/schedules_pb.js';
export * from '../gen/ferry/v1/budgets_pb.js';
export * from '../gen/ferry/v1/http_pb.js';
export * from '../gen/ferry/v1/errors_pb.js';
export {
  grpcJsServiceDefinition,
  type GrpcJsMethodDefinition,
  type GrpcJsServiceDefinition,
  type NodeBuffer,
} from './grpc-js.js';
