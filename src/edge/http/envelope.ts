import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { FerryError } from '../../domain/errors.js';

/** The response header that carries the envelope's `request_id`, also on 204 responses that have no envelope. */
export const REQUEST_ID_HEADER = 'Ferry-Request-Id';

const JSON_TYPE = 'application/json';

/** The success envelope around `data` and `meta`, which are already JSON text. */
export function successEnvelope(data: string, requestId: string, meta = 'null'): string {
  return `{"success":true,"data":${data},"error":null,"meta":${meta},"request_id":"${requestId}"}`;
}

export function errorEnvelope(err: FerryError, requestId: string): string {
  const field = err.field === undefined ? 'null' : JSON.stringify(err.field);
  return `{"success":false,"data":null,"error":{"code":"${err.code}","message":${JSON.stringify(err.message)},"field":${field}},"meta":null,"request_id":"${requestId}"}`;
}

/**
 * Node's HTTP/1 and HTTP/2 compatibility responses: the gateway also runs behind a TLS server that speaks both.
 * `write` is left out because the two typings of it disagree and the gateway only ever calls `end`.
 */
export type JsonResponse = Omit<ServerResponse, 'write'> | Omit<Http2ServerResponse, 'write'>;
type Response = JsonResponse;

/** The headers of a JSON answer; `extra` adds some (Allow, Connection) to a rare one. */
export function jsonHeaders(body: string, requestId: string, extra?: Readonly<Record<string, string>>): Record<string, string | number> {
  const headers = { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body), [REQUEST_ID_HEADER]: requestId };
  return extra === undefined ? headers : { ...headers, ...extra };
}

export function sendJson(res: Response, status: number, body: string, requestId: string, extra?: Readonly<Record<string, string>>): void {
  // Both response kinds take the same arguments; their typings just disagree on the overloads.
  (res as ServerResponse).writeHead(status, jsonHeaders(body, requestId, extra));
  res.end(body);
}

export function sendEmpty(res: Response, status: number, requestId: string): void {
  (res as ServerResponse).writeHead(status, { [REQUEST_ID_HEADER]: requestId });
  res.end();
}

export function sendError(res: Response, err: FerryError, requestId: string, extra?: Readonly<Record<string, string>>): void {
  const retry = err.retryAfterSeconds === undefined ? extra : { ...extra, 'Retry-After': String(err.retryAfterSeconds) };
  sendJson(res, err.status, errorEnvelope(err, requestId), requestId, retry);
}
