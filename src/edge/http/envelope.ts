import type { ServerResponse } from 'node:http';
import type { FerryError } from '../../domain/errors.js';

/** The response header that carries the envelope's `request_id`, also on 204 responses that have no envelope. */
export const REQUEST_ID_HEADER = 'Ferry-Request-Id';

const JSON_TYPE = 'application/json';

/** The success envelope around `data`, which is already JSON text. */
export function successEnvelope(data: string, requestId: string): string {
  return `{"success":true,"data":${data},"error":null,"meta":null,"request_id":"${requestId}"}`;
}

export function errorEnvelope(err: FerryError, requestId: string): string {
  const field = err.field === undefined ? 'null' : JSON.stringify(err.field);
  return `{"success":false,"data":null,"error":{"code":"${err.code}","message":${JSON.stringify(err.message)},"field":${field}},"meta":null,"request_id":"${requestId}"}`;
}

export function sendJson(res: ServerResponse, status: number, body: string, requestId: string): void {
  res.writeHead(status, {
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(body),
    [REQUEST_ID_HEADER]: requestId,
  });
  res.end(body);
}

export function sendEmpty(res: ServerResponse, status: number, requestId: string): void {
  res.writeHead(status, { [REQUEST_ID_HEADER]: requestId });
  res.end();
}

export function sendError(res: ServerResponse, err: FerryError, requestId: string): void {
  sendJson(res, err.status, errorEnvelope(err, requestId), requestId);
}
