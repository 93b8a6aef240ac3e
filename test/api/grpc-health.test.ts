import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthListRequestSchema,
  HealthListResponseSchema,
} from '../../src/gen/grpc/health/v1/health_pb.js';
import * as v1 from '../../src/gen/grpc/reflection/v1/reflection_pb.js';
import { startFerry, type FerryProcess } from '../support/ferry-process.js';

const BUF = join(resolve(import.meta.dirname, '../..'), 'node_modules/.bin/buf');
const execFileAsync = promisify(execFile);

const FERRY_SERVICES = ['ferry.v1.BudgetService', 'ferry.v1.BulkActionService', 'ferry.v1.ProjectService', 'ferry.v1.RequestService', 'ferry.v1.ScheduleService', 'ferry.v1.StatsService'];

function unary<I extends DescMessage, O extends DescMessage>(
  client: grpc.Client,
  path: string,
  input: I,
  output: O,
  init: MessageInitShape<I>,
): Promise<MessageShape<O>> {
  return new Promise((resolvePromise, reject) => {
    client.makeUnaryRequest(
      path,
      (m: MessageShape<I>) => Buffer.from(toBinary(input, m)),
      (b: Buffer) => fromBinary(output, b),
      create(input, init),
      (err, value) => (err ? reject(err) : resolvePromise(value!)),
    );
  });
}

/** Reads the messages of a server stream one at a time, and how it ended. */
class StreamReader<T> {
  private readonly items: T[] = [];
  private ended: grpc.ServiceError | 'ok' | null = null;
  private wake: (() => void) | null = null;

  constructor(stream: grpc.ClientReadableStream<T> | grpc.ClientDuplexStream<unknown, T>) {
    stream.on('data', (item: T) => this.push(() => this.items.push(item)));
    stream.on('error', (err: grpc.ServiceError) => this.push(() => (this.ended ??= err)));
    stream.on('end', () => this.push(() => (this.ended ??= 'ok')));
  }

  async next(deadlineMs = 15_000): Promise<T> {
    const until = Date.now() + deadlineMs;
    while (this.items.length === 0) {
      if (this.ended !== null) throw new Error(`The stream ended: ${this.ended === 'ok' ? 'ok' : this.ended.message}`);
      const left = until - Date.now();
      if (left <= 0) throw new Error('No message before the deadline.');
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, left);
      });
    }
    return this.items.shift()!;
  }

  async end(deadlineMs = 15_000): Promise<grpc.ServiceError | 'ok'> {
    const until = Date.now() + deadlineMs;
    while (this.ended === null) {
      if (Date.now() > until) throw new Error('The stream did not end before the deadline.');
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 100);
      });
    }
    return this.ended;
  }

  private push(change: () => unknown): void {
    change();
    this.wake?.();
  }
}

function watch(client: grpc.Client, service: string): StreamReader<MessageShape<typeof HealthCheckResponseSchema>> {
  const stream = client.makeServerStreamRequest(
    '/grpc.health.v1.Health/Watch',
    (m: MessageShape<typeof HealthCheckRequestSchema>) => Buffer.from(toBinary(HealthCheckRequestSchema, m)),
    (b: Buffer) => fromBinary(HealthCheckResponseSchema, b),
    create(HealthCheckRequestSchema, { service }),
  );
  return new StreamReader(stream);
}

/**
 * One reflection exchange over a fresh stream. The v1alpha messages are the v1 messages byte for byte, so `alpha`
 * changes only the service called.
 */
async function reflect(
  client: grpc.Client,
  request: MessageInitShape<typeof v1.ServerReflectionRequestSchema>,
  alpha = false,
): Promise<MessageShape<typeof v1.ServerReflectionResponseSchema>> {
  const stream = client.makeBidiStreamRequest(
    `/grpc.reflection.${alpha ? 'v1alpha' : 'v1'}.ServerReflection/ServerReflectionInfo`,
    (m: MessageShape<typeof v1.ServerReflectionRequestSchema>) => Buffer.from(toBinary(v1.ServerReflectionRequestSchema, m)),
    (b: Buffer) => fromBinary(v1.ServerReflectionResponseSchema, b),
  );
  const reader = new StreamReader<MessageShape<typeof v1.ServerReflectionResponseSchema>>(stream);
  stream.write(create(v1.ServerReflectionRequestSchema, request));
  const answer = await reader.next();
  stream.end();
  expect(await reader.end()).toBe('ok');
  return answer;
}

describe('gRPC health and reflection', () => {
  let ferry: FerryProcess;
  let client: grpc.Client;
  beforeAll(async () => {
    ferry = await startFerry({ env: { FERRY_ROLES: 'api' } });
    client = new grpc.Client(ferry.grpcAddress, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await ferry?.stop();
  });

  it('answers Check SERVING for the server and each Ferry service, and NOT_FOUND for others', async () => {
    for (const service of ['', ...FERRY_SERVICES]) {
      const res = await unary(client, '/grpc.health.v1.Health/Check', HealthCheckRequestSchema, HealthCheckResponseSchema, { service });
      expect(res.status).toBe(ServingStatus.SERVING);
    }
    await expect(
      unary(client, '/grpc.health.v1.Health/Check', HealthCheckRequestSchema, HealthCheckResponseSchema, { service: 'no.such.Service' }),
    ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    const list = await unary(client, '/grpc.health.v1.Health/List', HealthListRequestSchema, HealthListResponseSchema, {});
    expect(Object.keys(list.statuses).sort()).toEqual(['', ...FERRY_SERVICES]);
  });

  it('needs no API key and never goes through the JSON gateway', async () => {
    const res = await fetch(`${ferry.baseUrl}/grpc.health.v1.Health/Check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"service": ""}',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'SERVING' });
  });

  it('Watch sends SERVING at once, and SERVICE_UNKNOWN for a service it does not know', async () => {
    const known = watch(client, '');
    expect((await known.next()).status).toBe(ServingStatus.SERVING);
    const unknown = watch(client, 'no.such.Service');
    expect((await unknown.next()).status).toBe(ServingStatus.SERVICE_UNKNOWN);
  });

  it('lists every service through reflection, v1 and v1alpha alike', async () => {
    const expected = [...FERRY_SERVICES, 'grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'];
    for (const alpha of [false, true]) {
      const answer = await reflect(client, { messageRequest: { case: 'listServices', value: '*' } }, alpha);
      expect(answer.messageResponse.case).toBe('listServicesResponse');
      const names = answer.messageResponse.case === 'listServicesResponse' ? answer.messageResponse.value.service.map((s) => s.name) : [];
      expect(names.sort()).toEqual(expected.sort());
    }
  });

  it('answers file_containing_symbol for ferry.v1.RequestService with its file and every file it imports', async () => {
    for (const symbol of ['ferry.v1.RequestService', 'ferry.v1.RequestService.Send']) {
      const answer = await reflect(client, { messageRequest: { case: 'fileContainingSymbol', value: symbol } });
      if (answer.messageResponse.case !== 'fileDescriptorResponse') throw new Error(`unexpected answer ${answer.messageResponse.case}`);
      const files = answer.messageResponse.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b));
      const [first] = files;
      expect(first?.name).toBe('ferry/v1/request_service.proto');
      expect(first?.service.map((s) => s.name)).toEqual(['RequestService']);
      const names = new Set(files.map((f) => f.name));
      for (const file of files) for (const dependency of file.dependency) expect(names).toContain(dependency);
      expect(names).toContain('google/protobuf/timestamp.proto');
    }
    const missing = await reflect(client, { messageRequest: { case: 'fileContainingSymbol', value: 'ferry.v1.Nothing' } });
    expect(missing.messageResponse).toMatchObject({ case: 'errorResponse', value: { errorCode: grpc.status.NOT_FOUND } });
    const byName = await reflect(client, { messageRequest: { case: 'fileByFilename', value: 'ferry/v1/errors.proto' } }, true);
    expect(byName.messageResponse.case).toBe('fileDescriptorResponse');
  });

  it('serves buf curl --list-services', async () => {
    const { stdout } = await execFileAsync(BUF, ['curl', '--list-services', '--protocol', 'grpc', '--http2-prior-knowledge', `http://${ferry.grpcAddress}`]);
    expect(stdout.trim().split('\n').sort()).toEqual(
      [...FERRY_SERVICES, 'grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'].sort(),
    );
  });
});

describe('gRPC health on SIGTERM', () => {
  let ferry: FerryProcess;
  let client: grpc.Client;
  beforeAll(async () => {
    ferry = await startFerry({ env: { FERRY_ROLES: 'api', FERRY_SHUTDOWN_GRACE_MS: '2000' } });
    client = new grpc.Client(ferry.grpcAddress, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    if (ferry?.child.exitCode === null) await ferry.kill();
  });

  it('Watch sees NOT_SERVING as soon as the drain begins, then the stream ends and the process exits 0', async () => {
    const watcher = watch(client, 'ferry.v1.RequestService');
    expect((await watcher.next()).status).toBe(ServingStatus.SERVING);
    const exited = new Promise<number | null>((resolvePromise) => ferry.child.once('exit', (code) => resolvePromise(code)));
    ferry.child.kill('SIGTERM');
    expect((await watcher.next()).status).toBe(ServingStatus.NOT_SERVING);
    const end = await watcher.end();
    expect(end === 'ok' ? 'ok' : end.code).toBe(grpc.status.UNAVAILABLE);
    expect(await exited).toBe(0);
  });
});
