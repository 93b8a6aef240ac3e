import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/domain/errors.js';

describe('the table of error codes', () => {
  it('lists exactly the catalogue, with the same statuses and RPC codes', () => {
    const section = readFileSync(resolve(import.meta.dirname, '../../src/domain/errors.md'), 'utf8');
    const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| (\d+) \| `([a-z_]+)` \|/gm)].map((m) => [m[1], Number(m[2]), m[3]]);
    const expected = Object.entries(ERROR_CATALOGUE).map(([code, e]) => [code, e.status, e.rpc]);
    expect(rows).toEqual(expected);
  });
});
