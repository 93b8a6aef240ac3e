import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import type { ApiResponse } from './api-client.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document walked by key
export type Json = any;

export const DOCUMENT: Json = JSON.parse(readFileSync(new URL('../../openapi/ferry.openapi.json', import.meta.url), 'utf8'));

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** One operation of the document: where it sits, and the path template it matched. */
export interface Operation {
  readonly pointer: string;
  readonly template: string;
  readonly method: string;
  readonly op: Json;
}

/**
 * The document as a validator: every schema is reached through the whole document, so `$ref`s resolve as any
 * OpenAPI tool resolves them, with ajv in strict mode (unknown keywords and formats are errors, not ignored).
 */
export class OpenApiDocument {
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly doc: Json = DOCUMENT) {
    addFormats(this.ajv);
    // The document's own top level is OpenAPI, not JSON Schema: known words that hold no keyword of their own.
    this.ajv.addVocabulary(Object.keys(doc));
    // OpenAPI's hint for code generators; `oneOf` alone already tells the shapes apart (each has its own `const`).
    this.ajv.addKeyword('discriminator');
    // The numeric formats of Protobuf, checked rather than ignored.
    this.ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
    this.ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
    this.ajv.addFormat('binary', true);
    // A string's limit in UTF-8 bytes; on maps and JSON values it is an annotation the service checks.
    this.ajv.addKeyword({
      keyword: 'x-ferry-max-bytes',
      schemaType: 'number',
      validate: (max: number, value: unknown) => typeof value !== 'string' || Buffer.byteLength(value) <= max,
    });
    this.ajv.addSchema(doc, 'ferry');
  }

  /** The value at a JSON pointer of the document. */
  at(pointer: string): Json {
    return pointer.split('/').slice(1).reduce((node: Json, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
  }

  /** Follows `$ref`s from a pointer to the object they name, returning its own pointer. */
  deref(pointer: string): { pointer: string; value: Json } {
    let value = this.at(pointer);
    while (value !== undefined && typeof value.$ref === 'string') {
      pointer = value.$ref.slice(1);
      value = this.at(pointer);
    }
    return { pointer, value };
  }

  /** What the schema at a pointer finds wrong with a value; empty when it is valid. */
  errors(pointer: string, value: unknown): string[] {
    let validate = this.compiled.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `ferry#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  }

  operations(): Operation[] {
    return Object.entries(this.doc.paths as Record<string, Json>).flatMap(([template, item]) =>
      HTTP_METHODS.filter((m) => item[m] !== undefined)
        .map((method) => ({ pointer: `/paths/${escape(template)}/${method}`, template, method, op: item[method] })));
  }

  operation(id: string): Operation {
    const found = this.operations().find((o) => o.op.operationId === id);
    if (found === undefined) throw new Error(`no operation ${id}`);
    return found;
  }

  /** The operation a method and path reach, preferring literal segments over captures as the gateway does. */
  route(method: string, path: string): Operation | undefined {
    const bare = path.split('?')[0]!;
    const matches = this.operations().filter((o) => o.method === method.toLowerCase()
      && new RegExp(`^${o.template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
    return matches.sort((a, b) => captures(a.template) - captures(b.template))[0];
  }

  /**
   * Holds a live answer to the document: its status is listed for the operation (or as `default`; for a method and
   * path no operation matches, among the unrouted answers), the documented headers are present and valid, and the
   * body is what the response's schema allows. Returns the response key that applied.
   */
  check(method: string, path: string, res: ApiResponse): string {
    const route = this.route(method, path);
    const status = String(res.status);
    let pointer: string;
    let key = status;
    if (route === undefined) {
      expect(this.doc['x-ferry-unrouted-responses'][status], `${method} ${path} answered ${status}, not an unrouted answer`).toBeDefined();
      pointer = `/x-ferry-unrouted-responses/${status}`;
    } else {
      if (route.op.responses[status] === undefined) key = 'default';
      expect(route.op.responses[key], `${route.op.operationId} answered ${status}, which it does not document`).toBeDefined();
      pointer = `${route.pointer}/responses/${key}`;
    }
    const response = this.deref(pointer);
    for (const name of Object.keys(response.value.headers ?? {})) {
      const header = this.deref(`${response.pointer}/headers/${escape(name)}`);
      const value = res.headers.get(name);
      if (header.value.required) expect(value, `${method} ${path} (${status}) lacks the ${name} header`).not.toBeNull();
      const errors = value === null ? [] : this.errors(`${header.pointer}/schema`, value);
      expect(errors, `${name}: ${value}: ${errors.join('; ')}`).toEqual([]);
    }
    const content = response.value.content?.['application/json'];
    if (content === undefined) {
      expect(res.body, `${method} ${path} (${status}) has a body the document does not show`).toBeNull();
    } else {
      const errors = this.errors(`${response.pointer}/content/application~1json/schema`, res.body);
      expect(errors, `${method} ${path} (${status}): ${errors.join('; ')}`).toEqual([]);
    }
    return key;
  }
}

function captures(template: string): number {
  return (template.match(/\{/g) ?? []).length;
}
