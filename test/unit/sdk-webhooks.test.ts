import { describe, expect, it } from 'vitest';
import { newSigningSecret, signPayload } from '../../src/domain/delivery/signature.js';
import {
  FutureTimestampError,
  InvalidHeaderError,
  MissingHeaderError,
  NoMatchingSignatureError,
  StaleTimestampError,
  verifyDelivery,
  WebhookVerificationError,
  type VerifyDeliveryOptions,
} from '../../sdk/src/webhooks/index.js';

// Deliveries are signed here by the server's own signing code, so the SDK is held to what Ferry really sends.
const SIGNED_AT = 1_790_000_000;
const NOW = new Date(SIGNED_AT * 1000 + 2_000);
const ID = 'req_01JTESTDELIVERY';
const current = newSigningSecret();
const previous = newSigningSecret();
const stranger = newSigningSecret();

function delivery(
  body: string | Uint8Array,
  opts: { secrets?: Uint8Array[]; id?: string; timestamp?: number; attempt?: string; scheduleId?: string } = {},
): Record<string, string> {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const id = opts.id ?? ID;
  const timestamp = opts.timestamp ?? SIGNED_AT;
  const headers: Record<string, string> = {
    'service-request-id': id,
    'service-attempt': opts.attempt ?? '1',
    'service-timestamp': String(timestamp),
    'service-signature': signPayload(opts.secrets ?? [current.secret], id, timestamp, bytes),
  };
  if (opts.scheduleId) headers['service-schedule-id'] = opts.scheduleId;
  return headers;
}

function verify(options: Partial<VerifyDeliveryOptions> & Pick<VerifyDeliveryOptions, 'headers' | 'body'>) {
  return verifyDelivery({ secret: current.encoded, now: NOW, ...options });
}

async function failure(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  expect(error).toBeInstanceOf(Error);
  return error as WebhookVerificationError;
}

describe('verifyDelivery', () => {
  it('accepts a signed delivery and says which request, attempt and time it is', async () => {
    const body = JSON.stringify({ order: 42 });
    const verified = await verify({ headers: delivery(body, { attempt: '3' }), body });
    expect(verified).toEqual({ requestId: ID, attempt: 3, timestamp: new Date(SIGNED_AT * 1000), scheduleId: null });
  });

  it('reports the schedule that made the request', async () => {
    const body = '{}';
    const verified = await verify({ headers: delivery(body, { scheduleId: 'sch_nightly' }), body });
    expect(verified.scheduleId).toBe('sch_nightly');
  });

  describe('headers in every shape a receiver meets', () => {
    const body = 'hello';
    const signed = delivery(body);

    it('a Fetch Headers object', async () => {
      await expect(verify({ headers: new Headers(signed), body })).resolves.toMatchObject({ requestId: ID });
    });

    it("Node's IncomingHttpHeaders: lower-case names, arrays and undefined values", async () => {
      const nodeHeaders: Record<string, string | string[] | undefined> = {
        ...signed,
        'service-attempt': ['1'],
        'set-cookie': ['a=1', 'b=2'],
        'x-absent': undefined,
      };
      await expect(verify({ headers: nodeHeaders, body })).resolves.toMatchObject({ requestId: ID, attempt: 1 });
    });

    it('a plain record with the names as Ferry writes them', async () => {
      const titled = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.replace(/(^|-)([a-z])/g, (m) => m.toUpperCase()), v]));
      expect(Object.keys(titled)).toContain('Service-Signature');
      await expect(verify({ headers: titled, body })).resolves.toMatchObject({ requestId: ID });
    });
  });

  describe('bodies as the raw bytes, in any form', () => {
    const bytes = new Uint8Array([0, 255, 1, 254, 10, 13, 0x7b, 0xc3, 0x28]);
    const headers = delivery(bytes);

    it('a Uint8Array, including a view into a larger buffer', async () => {
      await expect(verify({ headers, body: bytes })).resolves.toMatchObject({ requestId: ID });
      const larger = new Uint8Array(bytes.length + 8);
      larger.set(bytes, 5);
      await expect(verify({ headers, body: larger.subarray(5, 5 + bytes.length) })).resolves.toMatchObject({ requestId: ID });
    });

    it('a Node Buffer and an ArrayBuffer', async () => {
      await expect(verify({ headers, body: Buffer.from(bytes) })).resolves.toMatchObject({ requestId: ID });
      await expect(verify({ headers, body: bytes.slice().buffer })).resolves.toMatchObject({ requestId: ID });
    });

    it('a string, encoded as UTF-8', async () => {
      const text = 'größe: 10 €';
      await expect(verify({ headers: delivery(text), body: text })).resolves.toMatchObject({ requestId: ID });
      await expect(verify({ headers: delivery(new TextEncoder().encode(text)), body: text })).resolves.toMatchObject({ requestId: ID });
    });

    it('an empty body', async () => {
      await expect(verify({ headers: delivery(''), body: new Uint8Array() })).resolves.toMatchObject({ requestId: ID });
    });
  });

  describe('secret rotation', () => {
    const body = 'rotating';
    const bothSign = delivery(body, { secrets: [previous.secret, current.secret] });

    it('accepts a delivery signed by old and new secrets with either one alone', async () => {
      await expect(verify({ secret: previous.encoded, headers: bothSign, body })).resolves.toMatchObject({ requestId: ID });
      await expect(verify({ secret: current.encoded, headers: bothSign, body })).resolves.toMatchObject({ requestId: ID });
    });

    it('accepts when any of several configured secrets matches, whichever order', async () => {
      const newOnly = delivery(body, { secrets: [current.secret] });
      const oldOnly = delivery(body, { secrets: [previous.secret] });
      const secrets = [previous.encoded, current.encoded];
      await expect(verify({ secret: undefined, secrets, headers: newOnly, body })).resolves.toMatchObject({ requestId: ID });
      await expect(verify({ secret: undefined, secrets: [...secrets].reverse(), headers: oldOnly, body })).resolves.toMatchObject({ requestId: ID });
      await expect(verify({ secret: stranger.encoded, secrets: [current.encoded], headers: newOnly, body })).resolves.toMatchObject({ requestId: ID });
    });

    it('refuses when no configured secret signed it', async () => {
      const error = await failure(verify({ secret: undefined, secrets: [stranger.encoded, previous.encoded], headers: delivery(body), body }));
      expect(error).toBeInstanceOf(NoMatchingSignatureError);
    });
  });

  describe('what it refuses', () => {
    const body = '{"amount":100}';
    const headers = delivery(body);

    it('a changed body, request id or timestamp', async () => {
      expect(await failure(verify({ headers, body: '{"amount":900}' }))).toBeInstanceOf(NoMatchingSignatureError);
      expect(await failure(verify({ headers: { ...headers, 'service-request-id': 'req_other' }, body }))).toBeInstanceOf(NoMatchingSignatureError);
      const moved = { ...headers, 'service-timestamp': String(SIGNED_AT + 1) };
      expect(await failure(verify({ headers: moved, body }))).toBeInstanceOf(NoMatchingSignatureError);
    });

    it.each(['Service-Request-Id', 'Service-Attempt', 'Service-Timestamp', 'Service-Signature'])('a delivery without %s', async (name) => {
      const without = { ...headers };
      delete without[name.toLowerCase()];
      const error = await failure(verify({ headers: without, body }));
      expect(error).toBeInstanceOf(MissingHeaderError);
      expect((error as MissingHeaderError).header).toBe(name);
      const empty = await failure(verify({ headers: { ...headers, [name.toLowerCase()]: '' }, body }));
      expect(empty).toBeInstanceOf(MissingHeaderError);
    });

    it.each([
      ['Service-Timestamp', 'soon'],
      ['Service-Timestamp', '1790000000.5'],
      ['Service-Timestamp', '-1790000000'],
      ['Service-Attempt', '0'],
      ['Service-Attempt', 'two'],
      ['Service-Request-Id', 'req.with.dots'],
      ['Service-Signature', 'v2,c2lnbmF0dXJl'],
      ['Service-Signature', 'v1,not base64!'],
      ['Service-Signature', 'v1,c2hvcnQ='],
    ])('%s: %s', async (name, value) => {
      const error = await failure(verify({ headers: { ...headers, [name.toLowerCase()]: value }, body }));
      expect(error).toBeInstanceOf(InvalidHeaderError);
      expect((error as InvalidHeaderError).header).toBe(name);
    });

    it('a secret that is not a whsec_ secret, without echoing it', async () => {
      for (const secret of ['not-a-secret', 'whsec_', 'whsec_c2hvcnQ=', current.encoded.slice(0, -2)]) {
        const error = await failure(verify({ secret, headers, body }));
        expect(error).toBeInstanceOf(InvalidHeaderError);
        expect((error as InvalidHeaderError).header).toBeNull();
      }
      const truncated = current.encoded.slice(0, -2);
      const error = await failure(verify({ secret: undefined, secrets: [current.encoded, truncated], headers, body }));
      expect(error.message).toContain('secret 2');
      expect(error.message).not.toContain(truncated.slice(6));
    });

    it('a call without any secret, as a programming error', async () => {
      await expect(verifyDelivery({ headers, body, now: NOW })).rejects.toThrow(TypeError);
    });
  });

  describe('the timestamp window', () => {
    const body = 'late';
    const headers = delivery(body);
    const at = (secondsAfterSigning: number) => new Date((SIGNED_AT + secondsAfterSigning) * 1000);

    it('accepts up to the tolerance either way, 300 s unless told', async () => {
      await expect(verify({ headers, body, now: at(300) })).resolves.toMatchObject({ requestId: ID });
      await expect(verify({ headers, body, now: at(-300) })).resolves.toMatchObject({ requestId: ID });
      await expect(verify({ headers, body, now: (SIGNED_AT + 100) * 1000 })).resolves.toMatchObject({ requestId: ID });
    });

    it('refuses an old delivery as stale and one from the future as such', async () => {
      const stale = await failure(verify({ headers, body, now: at(301) }));
      expect(stale).toBeInstanceOf(StaleTimestampError);
      expect((stale as StaleTimestampError).timestamp).toEqual(at(0));
      expect(await failure(verify({ headers, body, now: at(-301) }))).toBeInstanceOf(FutureTimestampError);
    });

    it('honours a custom tolerance', async () => {
      expect(await failure(verify({ headers, body, now: at(11), toleranceSeconds: 10 }))).toBeInstanceOf(StaleTimestampError);
      await expect(verify({ headers, body, now: at(3000), toleranceSeconds: 3600 })).resolves.toMatchObject({ requestId: ID });
    });

    it('refuses a tolerance that is not a number of seconds, as a programming error', async () => {
      for (const toleranceSeconds of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(verify({ headers, body, toleranceSeconds })).rejects.toThrow(TypeError);
      }
    });

    it('checks the window before the signature, so a stale replay of a genuine delivery is named as stale', async () => {
      expect(await failure(verify({ headers, body: 'tampered', now: at(10_000) }))).toBeInstanceOf(StaleTimestampError);
    });
  });

  it('names each error class after itself', () => {
    expect(new MissingHeaderError('Service-Timestamp').name).toBe('MissingHeaderError');
    expect(new NoMatchingSignatureError().name).toBe('NoMatchingSignatureError');
  });
});
