import { create } from '@bufbuild/protobuf';
import { CallFailure, succeeded } from '../calls/failure.js';
import type { UnaryCall, UnaryHandler } from '../calls/unary-call.js';
import { sendEmpty, sendError, sendJson, successEnvelope, type JsonResponse } from './envelope.js';
import { fieldWriter, messageWriter, type ValueWriter } from './json-writer.js';
import type { Route } from './routes.js';

/** How a route's answers are written: its status rules and the writers of its envelope's `data` and `meta`. */
export interface JsonAnswering {
  readonly route: Route;
  readonly writeData: ValueWriter;
  /** Writes `meta`, or undefined when the route's `meta` is always null. */
  readonly writeMeta: ValueWriter | undefined;
}

/** A call of the JSON HTTP API in the chain: the response it is answered on, and its route's writers. */
export interface JsonCall extends UnaryCall {
  readonly res: JsonResponse;
  readonly entry: JsonAnswering;
}

export function answeringOf(route: Route): JsonAnswering {
  return { route, writeData: dataWriter(route), writeMeta: metaWriter(route) };
}

/**
 * The JSON API's answer stage: the response in the envelope with the route's status, or the failure's catalogue
 * error in the error envelope (with `Retry-After` when it has one). Nothing is written to a client that has left,
 * or after a response has begun; then the call is not reported.
 */
export function answerJson<C extends JsonCall>(next: UnaryHandler<C>): UnaryHandler<C, void> {
  return async (call) => {
    const { res, entry } = call;
    try {
      const result = await next(call);
      if (res.destroyed) return;
      const response = create(entry.route.method.output, result as never) as unknown as Record<string, unknown>;
      const status = successStatus(entry.route, response);
      if (entry.route.emptyResponse) sendEmpty(res, status, call.requestId);
      else sendJson(res, status, successEnvelope(entry.writeData(response), call.requestId, entry.writeMeta?.(response)), call.requestId);
      call.answer = succeeded(status);
    } catch (err) {
      // Also reached when writing the answer failed: a response not yet begun still gets the error envelope.
      if (res.headersSent || res.destroyed) return;
      const failure = CallFailure.of(err);
      sendError(res, failure.ferry, call.requestId);
      call.answer = failure.answer;
    }
  };
}

/** Writes the `data` of the envelope: the `response_body` field, or else the whole response message. */
function dataWriter(route: Route): ValueWriter {
  const oneof = route.responseOneof;
  if (oneof !== undefined) {
    const writers = new Map(oneof.fields.map((f) => [f.localName, fieldWriter(f)]));
    return (response) => {
      const set = (response as Record<string, { case?: string; value?: unknown } | undefined>)[oneof.localName];
      const write = set?.case === undefined ? undefined : writers.get(set.case);
      return write === undefined ? 'null' : write(set!.value);
    };
  }
  const field = route.responseField;
  if (field === undefined) return messageWriter(route.method.output);
  const write = fieldWriter(field);
  return (response) => write((response as Record<string, unknown>)[field.localName]);
}

/** Writes the `response_meta` field, when the route names one; an unset field leaves `meta` null. */
function metaWriter(route: Route): ValueWriter | undefined {
  const field = route.metaField;
  if (field === undefined) return undefined;
  const write = fieldWriter(field);
  return (response) => {
    const value = (response as Record<string, unknown>)[field.localName];
    return value === undefined ? 'null' : write(value);
  };
}

function successStatus(route: Route, response: Record<string, unknown>): number {
  for (const o of route.statusOverrides) if (response[o.field.localName] === o.value) return o.status;
  return route.successStatus;
}
