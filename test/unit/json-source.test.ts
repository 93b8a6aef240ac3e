import { describe, expect, it } from 'vitest';
import { hasRespelledNumber, noteRespelledNumbers, respelledText } from '../../src/edge/http/json-source.js';

/** Parses `text` as the gateway does and returns the parsed value, with respelled members noted. */
function parsed(text: string): Record<string, unknown> {
  const json = JSON.parse(text) as Record<string, unknown>;
  noteRespelledNumbers(text, json);
  return json;
}

describe('JSON source text of respelled numbers', () => {
  it.each([
    ['12345678901234567890123', true],
    ['9007199254740993', true],
    ['1.0', true],
    ['1.50', true],
    ['1e3', true],
    ['1E+3', true],
    ['-0', true],
    ['-0.0', true],
    ['0.0000001', true],
    ['0.1234567890123456789', true],
    ['0.30000000000000001', true],
    ['0', false],
    ['-1', false],
    ['19.99', false],
    ['0.000001', false],
    ['123456789012345', false],
    ['-0.5', false],
  ])('tells whether %s reads back otherwise', (number, respelled) => {
    expect(hasRespelledNumber(`{"n":${number}}`)).toBe(respelled);
    expect(String(Number(number)) !== number).toBe(respelled);
  });

  it('tells of a text that is one number', () => {
    expect(hasRespelledNumber('1.50')).toBe(true);
    expect(hasRespelledNumber('1.5')).toBe(false);
  });

  it('ignores numbers inside strings', () => {
    expect(hasRespelledNumber('{"a":"1.0 and 1e3 and 12345678901234567890","b":"say \\"1.0\\" 2.50"}')).toBe(false);
    const json = parsed('{"a":"1.0","b":{"c":"12345678901234567890"}}');
    expect(respelledText(json, 'a')).toBeUndefined();
    expect(respelledText(json, 'b')).toBeUndefined();
  });

  it('gives the text of every member that holds a respelled number, and of no other', () => {
    const json = parsed('{"url":"u","body":{"big":12345678901234567890123,"f":1.0,"ok":2},"n":3,"list":[1, 2.0]}');
    expect(respelledText(json, 'body')).toBe('{"big":12345678901234567890123,"f":1.0,"ok":2}');
    expect(respelledText(json, 'list')).toBe('[1,2.0]');
    expect(respelledText(json, 'url')).toBeUndefined();
    expect(respelledText(json, 'n')).toBeUndefined();
    const body = json.body as Record<string, unknown>;
    expect(respelledText(body, 'big')).toBe('12345678901234567890123');
    expect(respelledText(body, 'f')).toBe('1.0');
    expect(respelledText(body, 'ok')).toBeUndefined();
  });

  it('finds members inside arrays of objects, as in a batch', () => {
    const json = parsed('{"requests":[{"url":"a","body":{"x":1.50}},{"url":"b","body":[1,2]},{"url":"c","body":-0}]}');
    const items = json.requests as Record<string, unknown>[];
    expect(respelledText(items[0]!, 'body')).toBe('{"x":1.50}');
    expect(respelledText(items[1]!, 'body')).toBeUndefined();
    expect(respelledText(items[2]!, 'body')).toBe('-0');
  });

  it('drops the whitespace between tokens and keeps that inside strings', () => {
    const json = parsed('{ "body" : {\n  "a" : [ 1.0 ,\t"x  y" ],\r\n  "b": "  "\n} }');
    expect(respelledText(json, 'body')).toBe('{"a":[1.0,"x  y"],"b":"  "}');
  });

  it('matches keys written with escapes to the keys JSON.parse made', () => {
    const json = parsed('{"b\\u006fdy":{"n":1.0},"q\\"uote":2.0}');
    expect(respelledText(json, 'body')).toBe('{"n":1.0}');
    expect(respelledText(json, 'q"uote')).toBe('2.0');
  });

  it('keeps the last of repeated keys, as JSON.parse does', () => {
    expect(respelledText(parsed('{"a":{"b":1.0},"a":{"b":2}}'), 'a')).toBeUndefined();
    const later = parsed('{"a":{"b":2},"a":{"b":1.0}}');
    expect(respelledText(later, 'a')).toBe('{"b":1.0}');
    expect(respelledText(later.a as object, 'b')).toBe('1.0');
    expect(respelledText(parsed('{"a":1.0,"a":"x"}'), 'a')).toBeUndefined();
  });

  it('copes with any depth', () => {
    const depth = 100_000;
    const text = `{"deep":${'['.repeat(depth)}1.0${']'.repeat(depth)}}`;
    const json = parsed(text);
    expect(respelledText(json, 'deep')).toBe(text.slice(8, -1));
  });
});
