import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { excerptForStorage, excerptFromStorage } from '../../src/adapters/embedded/excerpt-bytes.js';

describe('a response excerpt as the embedded backend stores it', () => {
  const json = new TextEncoder().encode(JSON.stringify({ data: Array.from({ length: 40 }, (_, i) => ({ id: `ord_${i}`, status: 'pending', amount: i * 37 })) }).slice(0, 2048));

  it('deflates text that shrinks and reads back the same bytes', () => {
    const stored = excerptForStorage(json);
    expect(stored.deflated).toBe(true);
    expect(stored.bytes.length).toBeLessThan(json.length / 2);
    expect(Buffer.from(excerptFromStorage(stored.bytes, 1)!)).toEqual(Buffer.from(json));
  });

  it('keeps bytes that do not shrink, and short excerpts, as read', () => {
    const random = new Uint8Array(randomBytes(2048));
    const stored = excerptForStorage(random);
    expect(stored).toEqual({ bytes: random, deflated: false });
    expect(Buffer.from(excerptFromStorage(stored.bytes, 0)!)).toEqual(Buffer.from(random));
    const short = new TextEncoder().encode('{"error":"unavailable"}');
    expect(excerptForStorage(short)).toEqual({ bytes: short, deflated: false });
  });

  it('reads an empty excerpt and no excerpt', () => {
    expect(excerptFromStorage(new Uint8Array(0), 0)).toEqual(new Uint8Array(0));
    expect(excerptFromStorage(null, null)).toBeNull();
  });
});
