import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Api, type ApiResponse } from '../support/api-client.js';
import { createProject } from '../support/ferry-process.js';
import { DEST, useFerry } from '../support/fixture.js';
import { OpenApiDocument, type Json } from '../support/openapi-document.js';

/**
 * The input side of the document, driven by the document itself: every bound a request schema states (minimum,
 * maximum, minLength, maxLength, enum, minItems, maxItems, min/maxProperties, the length of map keys and values,
 * pattern, format, required) is probed at the bound, which the live server must accept, and one step past it,
 * which it must refuse with 422. A constraint added to the document is probed without touching this file; an
 * operation that gains one needs a valid call below to start from.
 */
const openapi = new OpenApiDocument();

/** A call an operation accepts, fresh each time (new idempotency keys), for a probe to change one thing of. */
interface Call {
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: Json;
  raw?: string;
}

type Path = Array<string | number>;

let counter = 0;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A string of `length` characters never produced before in this run, of letters and digits only. */
function unique(length: number): string {
  let n = counter++;
  let out = '';
  do {
    out += ALPHABET[n % ALPHABET.length];
    n = Math.floor(n / ALPHABET.length);
  } while (n > 0);
  return (out + 'a'.repeat(length)).slice(0, length);
}
const key = () => `${unique(4)}-${randomUUID()}`;

const BASELINES: Record<string, () => Promise<Call>> = {};

/** A string of exactly `length` characters that keeps to the schema's format and stays unique. */
function stringOf(schema: Json, length: number): string {
  if (schema.format === 'uri') return `${DEST}/${'a'.repeat(Math.max(0, length - DEST.length - 1))}`;
  const plain = unique(length);
  // Where the pattern asks for a media type (type/subtype) and the length leaves room for one.
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(plain) && length >= 3) return `x/${unique(length - 2)}`;
  return plain;
}

/**
 * A value the pattern refuses, or undefined when none can be sent where the value goes: a header carries only
 * visible Latin-1 text, which is just what a header-value pattern allows.
 */
function offPattern(pattern: string, inHeader: boolean): string | undefined {
  const candidates = inHeader ? ['!', '/', '{'] : ['!', ' ', '/', '\u0100'];
  return candidates.find((c) => !new RegExp(pattern, 'u').test(c));
}

const OFF_FORMAT: Record<string, string> = { 'date-time': 'yesterday', uri: 'not a url' };

/** One probe: a change of a valid call, whether the document allows it, and so what the server must answer. */
interface Probe {
  readonly what: string;
  readonly allowed: boolean;
  apply(call: Call): void;
}

function setAt(target: Json, path: Path, value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) node = node[part] ??= {};
  const last = path.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
}

/** The probes of one schema at a place in the call. */
function probesOf(schema: Json, place: string, set: (call: Call, value: unknown) => void, inHeader = false): Probe[] {
  const out: Probe[] = [];
  const probe = (what: string, allowed: boolean, value: () => unknown) =>
    out.push({ what: `${place} ${what}`, allowed, apply: (call) => set(call, value()) });
  if (schema.minimum !== undefined) {
    probe(`= minimum ${schema.minimum}`, true, () => schema.minimum);
    probe(`= minimum - 1`, false, () => schema.minimum - 1);
  }
  if (schema.maximum !== undefined) {
    probe(`= maximum ${schema.maximum}`, true, () => schema.maximum);
    probe(`= maximum + 1`, false, () => schema.maximum + 1);
  }
  if (schema.multipleOf !== undefined) probe(`off multipleOf ${schema.multipleOf}`, false, () => (schema.minimum ?? 0) + 1);
  if (schema.minLength !== undefined) {
    probe(`of minLength ${schema.minLength}`, true, () => stringOf(schema, schema.minLength));
    probe(`of minLength - 1`, false, () => stringOf(schema, schema.minLength - 1));
  }
  if (schema.maxLength !== undefined) {
    probe(`of maxLength ${schema.maxLength}`, true, () => stringOf(schema, schema.maxLength));
    probe(`of maxLength + 1`, false, () => stringOf(schema, schema.maxLength + 1));
  }
  const off = schema.pattern === undefined ? undefined : offPattern(schema.pattern, inHeader);
  if (off !== undefined) probe(`= ${JSON.stringify(off)}, off its pattern`, false, () => off);
  if (OFF_FORMAT[schema.format] !== undefined) probe(`not a ${schema.format}`, false, () => OFF_FORMAT[schema.format]);
  if (schema.enum !== undefined) {
    probe('outside its enum', false, () => `${schema.enum[0]}-not`);
    for (const member of schema.enum) probe(`= ${member}`, true, () => member);
  }
  // The value that selects one shape of a message with variants: another value matches no shape.
  if (schema.const !== undefined) probe(`other than ${JSON.stringify(schema.const)}`, false, () => `${schema.const}-not`);
  return out;
}

/**
 * Probes of a JSON body, walking the request schema through `$ref`s, nested objects, array items and maps. Of a
 * message with variants it walks the shape `sample` (the valid call's body) holds there, or every shape without one.
 */
function bodyProbes(pointer: string, path: Path, out: Probe[], sample?: Json): void {
  const { pointer: at, value: schema } = openapi.deref(pointer);
  if (schema.oneOf !== undefined && schema.discriminator !== undefined) {
    const tag = schema.discriminator.propertyName as string;
    const chosen = sample === undefined ? undefined : path.reduce((node: Json, p) => node?.[p], sample)?.[tag];
    (schema.oneOf as Json[]).forEach((_, i) => {
      const shape = openapi.deref(`${at}/oneOf/${i}`).value;
      if (chosen === undefined || shape.properties[tag].const === chosen) bodyProbes(`${at}/oneOf/${i}`, path, out, sample);
    });
    return;
  }
  const place = path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[') || 'body';
  const setBody = (value: unknown) => (call: Call) => (path.length === 0 ? (call.body = value) : setAt(call.body, path, value));
  const count = (n: number, make: (i: number) => [string, string]) => Object.fromEntries(Array.from({ length: n }, (_, i) => make(i)));
  if (schema.type === 'object' && schema.properties !== undefined) {
    for (const name of schema.required ?? []) {
      out.push({ what: `${place} without ${name}`, allowed: false, apply: (call) => setAt(call.body, [...path, name], undefined) });
    }
    if (schema.minProperties !== undefined) {
      const keep = (n: number) => (call: Call) => {
        const node = path.reduce((at: Json, p) => at?.[p], call.body) ?? {};
        setBody(Object.fromEntries(Object.entries(node).slice(0, n)))(call);
      };
      out.push({ what: `${place} of minProperties ${schema.minProperties}`, allowed: true, apply: keep(schema.minProperties) });
      out.push({ what: `${place} of minProperties - 1`, allowed: false, apply: keep(schema.minProperties - 1) });
    }
    for (const name of Object.keys(schema.properties)) {
      // An optional property the valid call leaves out is not probed: two that exclude each other (a bulk action's
      // `ids` and `filter`) cannot both be in one valid call.
      const absent = sample !== undefined && [...path, name].reduce((node: Json, p) => node?.[p], sample) === undefined;
      if (absent && !(schema.required ?? []).includes(name)) continue;
      bodyProbes(`${at}/properties/${name}`, [...path, name], out, sample);
    }
    return;
  }
  if (schema.type === 'array') {
    const fill = (n: number) => (call: Call) => {
      const first = path.reduce((node: Json, p) => node[p], call.body)[0];
      setBody(Array.from({ length: n }, () => fresh(first)))(call);
    };
    if (schema.minItems !== undefined) {
      out.push({ what: `${place} of minItems ${schema.minItems}`, allowed: true, apply: fill(schema.minItems) });
      out.push({ what: `${place} of minItems - 1`, allowed: false, apply: fill(schema.minItems - 1) });
    }
    if (schema.maxItems !== undefined) {
      out.push({ what: `${place} of maxItems ${schema.maxItems}`, allowed: true, apply: fill(schema.maxItems) });
      out.push({ what: `${place} of maxItems + 1`, allowed: false, apply: fill(schema.maxItems + 1) });
    }
    bodyProbes(`${at}/items`, [...path, 0], out, sample);
    return;
  }
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object') {
    const prefix = schema.propertyNames?.pattern?.includes('!') ? 'X-Probe-' : 'probe';
    if (schema.maxProperties !== undefined) {
      out.push({ what: `${place} of maxProperties ${schema.maxProperties}`, allowed: true, apply: setBody(count(schema.maxProperties, (i) => [`${prefix}${i}`, 'v'])) });
      out.push({ what: `${place} of maxProperties + 1`, allowed: false, apply: setBody(count(schema.maxProperties + 1, (i) => [`${prefix}${i}`, 'v'])) });
    }
    if (schema.propertyNames !== undefined) {
      out.push(...probesOf(schema.propertyNames, `${place} key`, (call, name) => setBody({ [name as string]: 'v' })(call)));
    }
    out.push(...probesOf(schema.additionalProperties, `${place} value`, (call, value) => setBody({ [`${prefix}v`]: value })(call)));
    return;
  }
  out.push(...probesOf(schema, place, (call, value) => setBody(value)(call)));
}

/**
 * A copy of a list item that does not repeat the others: a batch item with new idempotency keys, a string (a flow
 * key, whose list takes each one once) of the same length with new letters.
 */
function fresh(item: Json): Json {
  if (typeof item === 'string') return unique(item.length);
  const copy = structuredClone(item);
  if (typeof copy.idempotency_key === 'string') copy.idempotency_key = key();
  return copy;
}

function probesOfOperation(id: string, sample?: Json): Probe[] {
  const { pointer, op } = openapi.operation(id);
  const out: Probe[] = [];
  (op.parameters ?? []).forEach((param: Json, i: number) => {
    if (param.in === 'path') return;
    const where = param.in === 'query' ? 'query' : 'headers';
    const set = (call: Call, value: unknown) => {
      if (value === undefined) delete call[where][param.name];
      else call[where][param.name] = String(value);
    };
    if (param.required) out.push({ what: `without ${param.name}`, allowed: false, apply: (call) => set(call, undefined) });
    out.push(...probesOf(openapi.deref(`${pointer}/parameters/${i}/schema`).value, param.name, set, param.in === 'header'));
  });
  const forward = op['x-ferry-forward-headers'];
  if (forward?.schema.maxProperties !== undefined) {
    const headers = (n: number) => (call: Call) => {
      for (let i = 0; i < n; i++) call.headers[`${forward.prefix}X-Probe-${i}`] = 'v';
    };
    out.push({ what: `${forward.prefix}* of maxProperties ${forward.schema.maxProperties}`, allowed: true, apply: headers(forward.schema.maxProperties) });
    out.push({ what: `${forward.prefix}* of maxProperties + 1`, allowed: false, apply: headers(forward.schema.maxProperties + 1) });
  }
  const contentType = op.requestBody?.['x-ferry-content-type'];
  if (contentType !== undefined) out.push(...probesOf(contentType, 'Content-Type', (call, v) => (call.headers['Content-Type'] = String(v)), true));
  if (op.requestBody?.content?.['application/json'] !== undefined) bodyProbes(`${pointer}/requestBody/content/application~1json/schema`, [], out, sample);
  return out;
}

/** What the document says of a changed call: true when every parameter and the body are valid. */
function documentAllows(id: string, call: Call): boolean {
  const { pointer, op } = openapi.operation(id);
  for (const [i, param] of ((op.parameters ?? []) as Json[]).entries()) {
    if (param.in === 'path') continue;
    const given = param.in === 'query' ? call.query[param.name] : call.headers[param.name];
    if (given === undefined) {
      if (param.required) return false;
      continue;
    }
    const schema = openapi.deref(`${pointer}/parameters/${i}/schema`).value;
    const value = schema.type === 'integer' ? Number(given) : given;
    if (openapi.errors(`${pointer}/parameters/${i}/schema`, value).length > 0) return false;
  }
  const contentType = op.requestBody?.['x-ferry-content-type'];
  if (contentType !== undefined && call.headers['Content-Type'] !== undefined) {
    if (openapi.errors(`${pointer}/requestBody/x-ferry-content-type`, call.headers['Content-Type']).length > 0) return false;
  }
  const forward = op['x-ferry-forward-headers'];
  if (forward !== undefined) {
    const given = Object.fromEntries(Object.entries(call.headers).filter(([name]) => name.startsWith(forward.prefix)).map(([n, v]) => [n.slice(forward.prefix.length), v]));
    if (openapi.errors(`${pointer}/x-ferry-forward-headers/schema`, given).length > 0) return false;
  }
  if (call.body === undefined) return true;
  return openapi.errors(`${pointer}/requestBody/content/application~1json/schema`, call.body).length === 0;
}

async function send(api: Api, id: string, call: Call): Promise<ApiResponse<Json>> {
  const { method } = openapi.operation(id);
  const query = Object.keys(call.query).length > 0 ? `?${new URLSearchParams(call.query)}` : '';
  const init = call.body !== undefined ? { json: call.body, headers: call.headers } : { body: call.raw, headers: call.headers };
  const path = `${call.path}${query}`;
  const res = await api.call<Json>(method.toUpperCase(), path, init);
  openapi.check(method, path, res);
  return res;
}

describe('every bound the OpenAPI document states on input holds on the live server', () => {
  const f = useFerry();
  let api: Api;

  beforeAll(async () => {
    // A project of its own with room for every schedule the probes create.
    api = new Api(f.ferry.baseUrl, (await createProject(f.ferry.dataDir, { scheduleAllowance: 1000 })).apiKey);
    const accepted = async (call: Call, id: string) => {
      const res = await send(api, id, call);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body.data;
    };
    const cancelled = await accepted({ path: '/requests', query: {}, headers: {}, body: { url: DEST, delay: '1h' } }, 'CreateRequest');
    await accepted({ path: `/requests/${cancelled.id}/cancel`, query: {}, headers: {} }, 'CancelRequest');
    const timing = () => ({ type: 'interval', every_seconds: 3600 });
    const schedule = () => ({ name: 'probe', timing: timing(), request: { url: DEST, retry: 1, headers: { 'X-A': 'b' }, body: { a: 1 }, flow_keys: [unique(6)] } });
    const limits = () => ({ rate: { limit: 10, period: '1s', burst: 20 }, concurrency: 5, adaptive: true });
    const scheduled = await accepted({ path: '/schedules', query: {}, headers: { 'Idempotency-Key': key() }, body: schedule() }, 'CreateSchedule');

    Object.assign(BASELINES, {
      Send: async () => ({ path: '/send', query: { url: DEST, retry: '1', queue: 'q' }, headers: { 'Idempotency-Key': key(), 'Content-Type': 'text/plain' }, raw: 'hello' }),
      CreateRequest: async () => ({
        path: '/requests', query: {}, headers: { 'Idempotency-Key': key() },
        body: { url: DEST, method: 'PUT', retry: { max_attempts: 2 }, queue: 'q', headers: { 'X-A': 'b' }, metadata: { k: 'v' }, flow_keys: [unique(6)] },
      }),
      BatchCreateRequests: async () => ({
        path: '/requests/batch', query: {}, headers: { 'Idempotency-Key': key() },
        body: { requests: [{ url: DEST, idempotency_key: key(), retry: { max_attempts: 2 }, headers: { 'X-A': 'b' }, metadata: { k: 'v' }, flow_keys: [unique(6)] }] },
      }),
      ListRequests: async () => ({ path: '/requests', query: { limit: '10', schedule_id: scheduled.id }, headers: {} }),
      ReplayRequest: async () => ({ path: `/requests/${cancelled.id}/replay`, query: {}, headers: { 'Idempotency-Key': key() } }),
      CreateSchedule: async () => ({ path: '/schedules', query: {}, headers: { 'Idempotency-Key': key() }, body: schedule() }),
      ListSchedules: async () => ({ path: '/schedules', query: { limit: '10' }, headers: {} }),
      PreviewSchedule: async () => ({ path: '/schedules/preview', query: {}, headers: {}, body: { timing: timing(), count: 5, after: new Date().toISOString() } }),
      UpdateSchedule: async () => ({ path: `/schedules/${scheduled.id}`, query: {}, headers: {}, body: schedule() }),
      TriggerSchedule: async () => ({ path: `/schedules/${scheduled.id}/trigger`, query: {}, headers: { 'Idempotency-Key': key() } }),
      BackfillSchedule: async () => ({
        path: `/schedules/${scheduled.id}/backfill`, query: {}, headers: { 'Idempotency-Key': key() },
        body: { from: new Date(Date.now() - 6 * 3_600_000).toISOString(), to: new Date(Date.now() - 3_600_000).toISOString() },
      }),
      ListQueues: async () => ({ path: '/queues', query: { limit: '10' }, headers: {} }),
      SetQueueLimits: async () => ({ path: '/queues/probe', query: {}, headers: {}, body: limits() }),
      ListFlowKeys: async () => ({ path: '/flow-keys', query: { limit: '10' }, headers: {} }),
      SetFlowKeyLimits: async () => ({ path: '/flow-keys/probe:1', query: {}, headers: {}, body: limits() }),
      // A dry run: the probes change nothing and never meet the limit of running actions.
      CreateBulkAction: async () => ({ path: '/bulk-actions', query: {}, headers: {}, body: { action: 'cancel', filter: { queue: 'q', status: 'queued' }, dry_run: true } }),
      ListBulkActions: async () => ({ path: '/bulk-actions', query: { limit: '10' }, headers: {} }),
    } satisfies Record<string, () => Promise<Call>>);
  });

  const operations = openapi.operations().map((o) => o.op.operationId as string);
  const probed = operations.filter((id) => probesOfOperation(id).length > 0);

  it('has a valid call to start from for every operation with a bound', () => {
    expect(probed.filter((id) => BASELINES[id] === undefined)).toEqual([]);
    expect(probed.length).toBeGreaterThan(0);
  });

  it.each(probed)('%s', async (id) => {
    const baseline = BASELINES[id];
    expect(baseline, `no valid call for ${id} to probe from`).toBeDefined();
    const start = await baseline!();
    expect(documentAllows(id, start), `the valid call of ${id} breaks the document`).toBe(true);
    expect((await send(api, id, start)).status).toBeLessThan(300);

    const failures: string[] = [];
    for (const probe of probesOfOperation(id, start.body)) {
      const call = await baseline!();
      probe.apply(call);
      expect(documentAllows(id, call), `the document ${probe.allowed ? 'refuses' : 'allows'} ${probe.what}`).toBe(probe.allowed);
      const res = await send(api, id, call);
      const ok = probe.allowed ? res.status < 300 : res.status === 422;
      if (!ok) failures.push(`${probe.what}: ${res.status} ${JSON.stringify(res.body?.error ?? null)}`);
    }
    expect(failures).toEqual([]);
  });
});
