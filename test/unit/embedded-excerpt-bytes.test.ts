import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { excerptFromStorage } from '../../src/adapters/embedded/excerpt-bytes.js';

describe('a response excerpt as the embedded backend reads it back', () => {
  const json = new TextEncoder().encode(JSON.stringify({ data: Array.from({ length: 40 }, (_, i) => ({ id: `ord_${i}`, status: 'pending', amount: i * 37 })) }).slice(0, 2048));
  const jsonText = new TextDecoder().decode(json);

  it('reads an excerpt stored as text, as it was written', () => {
    expect(excerptFromStorage(jsonText, 'utf8', new Uint8Array(0), 0)).toEqual({ text: jsonText, encoding: 'utf8' });
    expect(excerptFromStorage('aGk=', 'base64', new Uint8Array(0), 0)).toEqual({ text: 'aGk=', encoding: 'base64' });
    expect(excerptFromStorage('', 'utf8', new Uint8Array(0), 0)).toEqual({ text: '', encoding: 'utf8' });
  });

  it('reads bytes an earlier version stored as read, text or not', () => {
    const random = randomBytes(2048);
    random[0] = 0xff; // never valid UTF-8
    expect(excerptFromStorage(null, null, new Uint8Array(random), 0)).toEqual({ text: random.toString('base64'), encoding: 'base64' });
    expect(excerptFromStorage(null, null, json, 0)).toEqual({ text: jsonText, encoding: 'utf8' });
  });

  it('reads an excerpt an earlier version stored deflated', () => {
    expect(excerptFromStorage(null, null, deflateRawSync(json, { level: 1 }), 1)).toEqual({ text: jsonText, encoding: 'utf8' });
  });

  it('reads an empty excerpt and no excerpt', () => {
    expect(excerptFromStorage(null, null, new Uint8Array(0), 0)).toEqual({ text: '', encoding: 'utf8' });
    expect(excerptFromStorage(null, null, null, null)).toBeNull();
  });
});
