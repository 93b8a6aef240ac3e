import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { excerptFromStorage } from '../../src/adapters/embedded/excerpt-bytes.js';

describe('a response excerpt as the embedded backend reads it back', () => {
  const json = new TextEncoder().encode(JSON.stringify({ data: Array.from({ length: 40 }, (_, i) => ({ id: `ord_${i}`, status: 'pending', amount: i * 37 })) }).slice(0, 2048));

  it('reads an excerpt stored as read', () => {
    const random = new Uint8Array(randomBytes(2048));
    expect(Buffer.from(excerptFromStorage(random, 0)!)).toEqual(Buffer.from(random));
  });

  it('reads an excerpt an earlier version stored deflated', () => {
    expect(Buffer.from(excerptFromStorage(deflateRawSync(json, { level: 1 }), 1)!)).toEqual(Buffer.from(json));
  });

  it('reads an empty excerpt and no excerpt', () => {
    expect(excerptFromStorage(new Uint8Array(0), 0)).toEqual(new Uint8Array(0));
    expect(excerptFromStorage(null, null)).toBeNull();
  });
});
