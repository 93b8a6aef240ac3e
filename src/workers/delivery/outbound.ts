import { RESPONSE_BODY_EXCERPT_BYTES } from '../../domain/delivery/response.js';
import { signPayload } from '../../domain/delivery/signature.js';
import type { StoredRequest } from '../../domain/request.js';
import type { OutboundRequest } from '../../ports/delivery-transport.js';
import type { ProjectDelivery } from './project-delivery.js';

/** Headers Ferry adds to every delivery; callers cannot set `Service-*` headers themselves. */
export const DELIVERY_HEADERS = {
  requestId: 'Service-Request-Id',
  attempt: 'Service-Attempt',
  scheduleId: 'Service-Schedule-Id',
  timestamp: 'Service-Timestamp',
  signature: 'Service-Signature',
} as const;

/**
 * The wire form of one attempt: the stored method, URL, exact body and headers, plus Ferry's own headers and a
 * signature over `{request id}.{timestamp}.{body}` with every active signing secret of the project.
 */
export function outboundRequest(
  r: StoredRequest,
  attemptNumber: number,
  nowMs: number,
  project: ProjectDelivery,
  userAgent: string,
): OutboundRequest {
  const { secrets } = project;
  const timestamp = Math.floor(nowMs / 1000);
  const headers: Array<readonly [string, string]> = [];
  if (r.contentType !== null) headers.push(['Content-Type', r.contentType]);
  for (const h of r.headers) headers.push(h);
  if (!r.headers.some(([name]) => name.toLowerCase() === 'user-agent')) headers.push(['User-Agent', userAgent]);
  headers.push([DELIVERY_HEADERS.requestId, r.id]);
  headers.push([DELIVERY_HEADERS.attempt, String(attemptNumber)]);
  if (r.scheduleId !== null) headers.push([DELIVERY_HEADERS.scheduleId, r.scheduleId]);
  headers.push([DELIVERY_HEADERS.timestamp, String(timestamp)]);
  if (secrets.length > 0) headers.push([DELIVERY_HEADERS.signature, signPayload(secrets, r.id, timestamp, r.body)]);
  const captureBodyBytes = project.captureResponseBodies ? RESPONSE_BODY_EXCERPT_BYTES : 0;
  return { url: r.url, method: r.method, headers, body: r.body, timeoutMs: r.timeoutSeconds * 1000, captureBodyBytes };
}
