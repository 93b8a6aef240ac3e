import { create, createFileRegistry, setExtension, type MessageInitShape } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, file_google_protobuf_descriptor, MethodOptionsSchema } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { compilePathTemplate, matchPathTemplate } from '../../src/edge/http/path-template.js';
import { Router } from '../../src/edge/http/router.js';
import { DEFAULT_MAX_BODY_BYTES, readRoutes } from '../../src/edge/http/routes.js';
import { file_ferry_v1_http, http, HttpRouteSchema } from '../../src/gen/ferry/v1/http_pb.js';
import { RequestService } from '../../src/gen/ferry/v1/request_service_pb.js';
import { ScheduleService } from '../../src/gen/ferry/v1/schedule_service_pb.js';

/** A one-RPC service whose request message has a field of every bindable kind. */
function serviceWith(route: MessageInitShape<typeof HttpRouteSchema>) {
  const options = create(MethodOptionsSchema);
  setExtension(options, http, create(HttpRouteSchema, route));
  const T = { STRING: 9, INT32: 5, BYTES: 12, MESSAGE: 11, ENUM: 14 } as const;
  const file = create(FileDescriptorProtoSchema, {
    name: 'test/v1/t.proto', package: 'test.v1', syntax: 'proto3', dependency: ['ferry/v1/http.proto'],
    messageType: [
      {
        name: 'Req',
        field: [
          { name: 'id', number: 1, type: T.STRING, label: 1 },
          { name: 'n', number: 2, type: T.INT32, label: 1 },
          { name: 'raw', number: 3, type: T.BYTES, label: 1 },
          { name: 'sub', number: 4, type: T.MESSAGE, typeName: '.test.v1.Res', label: 1 },
        ],
      },
      { name: 'Res', field: [{ name: 'e', number: 1, type: T.ENUM, typeName: '.test.v1.E', label: 1 }] },
    ],
    enumType: [{ name: 'E', value: [{ name: 'E_UNSPECIFIED', number: 0 }, { name: 'E_DONE', number: 1 }] }],
    service: [{ name: 'TestService', method: [{ name: 'Do', inputType: '.test.v1.Req', outputType: '.test.v1.Res', options }] }],
  });
  const registry = createFileRegistry(file, (name) => (name === 'ferry/v1/http.proto' ? file_ferry_v1_http : name === 'google/protobuf/descriptor.proto' ? file_google_protobuf_descriptor : undefined));
  return registry.getService('test.v1.TestService')!;
}

const base = { method: 'POST', path: '/things/{id}', successStatus: 200 };

describe('routes from (ferry.v1.http)', () => {
  it('reads every RPC of the real services', () => {
    const routes = [...readRoutes(RequestService), ...readRoutes(ScheduleService)];
    expect(routes.map((r) => `${r.httpMethod} ${r.template.source}`)).toEqual([
      'POST /send', 'POST /requests', 'POST /requests/batch', 'GET /requests', 'GET /requests/{request_id}',
      'GET /requests/{request_id}/attempts', 'POST /requests/{request_id}/cancel', 'POST /requests/{request_id}/replay',
      'POST /schedules', 'GET /schedules', 'POST /schedules/preview', 'GET /schedules/{schedule_id}', 'PATCH /schedules/{schedule_id}',
      'POST /schedules/{schedule_id}/pause', 'POST /schedules/{schedule_id}/resume', 'POST /schedules/{schedule_id}/trigger',
      'POST /schedules/{schedule_id}/backfill', 'DELETE /schedules/{schedule_id}',
    ]);
    const send = routes[0]!;
    expect(send.body).toMatchObject({ kind: 'raw', field: { name: 'body' } });
    expect([...send.queryFields.keys()]).toEqual(['url', 'method', 'retry', 'delay', 'deliver_at', 'timeout', 'queue']);
    expect(send.headers.map((b) => [b.lowerName, b.field.name, b.prefix, b.list])).toEqual([
      ['content-type', 'content_type', false, false], ['idempotency-key', 'idempotency_key', false, false], ['flow-keys', 'flow_keys', false, true],
      ['callback-on-success', 'callback_on_success', false, false], ['callback-on-failure', 'callback_on_failure', false, false],
      ['x-forward-', 'forward_headers', true, false],
    ]);
    expect(send.maxBodyBytes).toBe(262_144);
    const batch = routes[2]!;
    expect(batch.body).toMatchObject({ kind: 'json', field: undefined, excluded: new Set(['idempotency_key']) });
    const get = routes[4]!;
    expect(get.maxBodyBytes).toBe(DEFAULT_MAX_BODY_BYTES);
    expect(get.pathFields.map((f) => f.name)).toEqual(['request_id']);
    expect(routes.at(-1)).toMatchObject({ emptyResponse: true, successStatus: 204 });
  });

  it('accepts a consistent route on a built descriptor', () => {
    const [route] = readRoutes(serviceWith({ ...base, query: ['n'], rawBody: 'raw', statusOverrides: [{ field: 'e', value: 'E_DONE', status: 201 }] }));
    expect(route!.statusOverrides).toEqual([{ field: expect.objectContaining({ name: 'e' }), value: 1, status: 201 }]);
  });

  it.each([
    [{ method: 'HEAD' }, /unsupported method/],
    [{ path: 'things' }, /must start with/],
    [{ path: '/things/{nope}' }, /unknown field "nope"/],
    [{ path: '/things/{n}' }, /must be a singular string/],
    [{ path: '/things/x{id}' }, /invalid segment/],
    [{ query: ['id'] }, /bound twice/],
    [{ query: ['sub'] }, /query field "sub"/],
    [{ path: '/things', rawBody: 'id' }, /must be bytes/],
    [{ path: '/things', body: 'id' }, /must be a message/],
    [{ body: 'sub', rawBody: 'raw' }, /exclude each other/],
    [{ headers: [{ name: 'X-N', field: 'n' }] }, /must be a singular string/],
    [{ path: '/things', headers: [{ name: 'X-', field: 'id', prefix: true }] }, /map<string, string>/],
    [{ path: '/things', headers: [{ name: 'X-', field: 'id', prefix: true, list: true }] }, /both a prefix and a list/],
    [{ responseBody: 'nope' }, /response_body/],
    [{ statusOverrides: [{ field: 'e', value: 'E_NOPE', status: 201 }] }, /no value "E_NOPE"/],
    [{ successStatus: 404 }, /not 2xx/],
  ])('refuses %j at start-up', (change, message) => {
    expect(() => readRoutes(serviceWith({ ...base, ...change }))).toThrow(message);
  });
});

describe('path templates and the router', () => {
  it('matches literals and captures, decoding captures', () => {
    const t = compilePathTemplate('/a/{x}/b/{y}');
    expect(matchPathTemplate(t, ['a', '1', 'b', 'two%20'])).toEqual(['1', 'two ']);
    expect(matchPathTemplate(t, ['a', '1', 'c', '2'])).toBeUndefined();
    expect(matchPathTemplate(t, ['a', '', 'b', '2'])).toBeUndefined();
    expect(matchPathTemplate(t, ['a', '1', 'b'])).toBeUndefined();
  });

  it('refuses two routes for the same method and path shape', () => {
    const [route] = readRoutes(RequestService).filter((r) => r.template.params.length > 0);
    expect(() => new Router([{ route: route! }, { route: route! }])).toThrow(/two routes/);
  });

  it('routes by method and path', () => {
    const router = new Router(readRoutes(RequestService).map((route) => ({ route })));
    expect(router.match('GET', '/requests/abc/attempts')).toMatchObject({ entry: { route: { method: { name: 'ListAttempts' } } }, captures: ['abc'] });
    expect(router.match('POST', '/requests/batch')?.entry.route.method.name).toBe('BatchCreateRequests');
    expect(router.match('GET', '/requests/batch')?.captures).toEqual(['batch']);
    expect(router.match('GET', '/requests//attempts')).toBeUndefined();
    expect(router.match('GET', 'requests')).toBeUndefined();
  });
});
