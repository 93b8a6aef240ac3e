import { describe, expect, it } from 'vitest';
import { validateCreate, validateDefinition, validateSend } from '../../src/domain/validation/index.js';
import { parseFlowKeysHeader, validateFlowKey, validateFlowKeys } from '../../src/domain/validation/flow-keys.js';
import { expectFerryError } from './expect-ferry-error.js';

const OPTS = { allowPrivateDestinations: false, now: Date.UTC(2026, 0, 1) };
const URL = 'https://example.com/hook';

describe('validateFlowKeys', () => {
  it('keeps up to four valid keys in the order given; absent is none', () => {
    expect(validateFlowKeys(['customer:42', 'vendor.acct-7', 'Region_EU', 'x'])).toEqual(['customer:42', 'vendor.acct-7', 'Region_EU', 'x']);
    expect(validateFlowKeys(undefined)).toEqual([]);
    expect(validateFlowKeys([])).toEqual([]);
    expect(validateFlowKeys(['k'.repeat(64)])).toEqual(['k'.repeat(64)]);
  });

  it.each([
    ['a key with a space', ['ok', 'a b'], 'flow_keys[1]'],
    ['five keys', ['a', 'b', 'c', 'd', 'e'], 'flow_keys'],
    ['a key named twice', ['a', 'b', 'a'], 'flow_keys[2]'],
    ['an empty key', [''], 'flow_keys[0]'],
    ['65 characters', ['k'.repeat(65)], 'flow_keys[0]'],
    ['a slash', ['a/b'], 'flow_keys[0]'],
    ['a non-ASCII letter', ['é'], 'flow_keys[0]'],
    ['a number', [7], 'flow_keys[0]'],
  ])('refuses %s, naming the field', (_what, keys, field) => {
    expectFerryError(() => validateFlowKeys(keys as unknown[]), 'INVALID_FLOW_KEY', field);
  });

  it('names the field under the prefix it is given', () => {
    expectFerryError(() => validateFlowKeys(['a', 'a'], 'request.flow_keys'), 'INVALID_FLOW_KEY', 'request.flow_keys[1]');
    expectFerryError(() => validateFlowKey('a b'), 'INVALID_FLOW_KEY', 'key');
  });
});

describe('the Flow-Keys header', () => {
  it('splits on commas and trims spaces and tabs around each key', () => {
    expect(parseFlowKeysHeader(' a , b:c,\td ')).toEqual(['a', 'b:c', 'd']);
    expect(parseFlowKeysHeader('only')).toEqual(['only']);
    expect(parseFlowKeysHeader(undefined)).toEqual([]);
  });

  it.each([['a b'], ['a,b,c,d,e'], ['a, b, a'], ['a,,b'], ['a,'], [''], [' ']])('refuses %j as Flow-Keys', (header) => {
    expectFerryError(() => parseFlowKeysHeader(header), 'INVALID_FLOW_KEY', 'Flow-Keys');
  });
});

describe('flow keys of requests', () => {
  it('go into the definition of a create and of a send', () => {
    expect(validateCreate({ url: URL, headers: {}, metadata: {}, flowKeys: ['a', 'b'] }, OPTS).definition.flowKeys).toEqual(['a', 'b']);
    expect(validateCreate({ url: URL, headers: {}, metadata: {} }, OPTS).definition.flowKeys).toEqual([]);
    const send = { url: URL, forwardHeaders: [], body: new Uint8Array() };
    expect(validateSend({ ...send, flowKeys: 'a, b' }, OPTS).definition.flowKeys).toEqual(['a', 'b']);
    expect(validateSend(send, OPTS).definition.flowKeys).toEqual([]);
  });

  it('are checked again before a replay', () => {
    const definition = validateCreate({ url: URL, headers: {}, metadata: {} }, OPTS).definition;
    expect(() => validateDefinition({ ...definition, flowKeys: ['a'] }, OPTS)).not.toThrow();
    expectFerryError(() => validateDefinition({ ...definition, flowKeys: ['a', 'a'] }, OPTS), 'INVALID_STORED_DEFINITION', 'flow_keys[1]');
  });
});
