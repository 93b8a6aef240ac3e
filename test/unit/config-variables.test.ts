import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, loadConfig, type ConfigVariable } from '../../src/config/config.js';

interface ReadmeRow {
  readonly names: string[];
  readonly defaultCell: string;
}

/** The rows of the configuration table (src/config/README.md), each with the variables its first cell names. */
function readmeRows(): ReadmeRow[] {
  const body = readFileSync(join(import.meta.dirname, '../../src/config/README.md'), 'utf8');
  return body
    .split('\n')
    .filter((line) => line.startsWith('| `FERRY_'))
    .map((line) => {
      const [, first = '', second = ''] = line.split('|');
      return { names: [...first.matchAll(/`(FERRY_[A-Z0-9_]+)`/g)].map((m) => m[1]!), defaultCell: second.trim() };
    });
}

describe('the declarative list of variables', () => {
  const rows = readmeRows();
  const documented = rows.flatMap((r) => r.names);
  const declared = CONFIG_VARIABLES.map((v) => v.name);

  it('has one entry per name', () => {
    expect(new Set(declared).size).toBe(declared.length);
  });

  it('the README documents every declared variable, once', () => {
    expect(documented.filter((n) => !declared.includes(n as never))).toEqual([]);
    expect(declared.filter((n) => !documented.includes(n))).toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
  });

  it("the README's default for each variable is the loader's", () => {
    for (const row of rows) {
      for (const name of row.names) {
        const v: ConfigVariable = CONFIG_VARIABLES.find((c) => c.name === name)!;
        if (typeof v.fallback === 'function') continue;
        if (v.fallback === null) expect(row.defaultCell, name).toMatch(/^unset\b|, unset\b/);
        else expect(row.defaultCell, name).toContain(`\`${v.fallback}\``);
      }
    }
  });

  it('the distributed-only rows come last, as the README says', () => {
    const isDistributed = (name: string) => 'distributedOnly' in CONFIG_VARIABLES.find((c) => c.name === name)!;
    const firstDistributed = documented.findIndex(isDistributed);
    expect(documented[firstDistributed]).toBe('FERRY_SHARDS');
    expect(documented.slice(firstDistributed).every(isDistributed)).toBe(true);
  });

  it('the loader reads every variable it declares, Cassandra and Kafka ones included', () => {
    const read = new Set<string>();
    const base: Record<string, string> = {
      FERRY_BACKEND: 'cassandra',
      FERRY_CASSANDRA_TLS: 'true',
      FERRY_KAFKA_TLS: 'true',
      FERRY_KAFKA_SASL_MECHANISM: 'plain',
    };
    const env = new Proxy(base, {
      get(target, name: string) {
        read.add(name);
        return target[name];
      },
    });
    loadConfig(env);
    const unread = CONFIG_VARIABLES.filter((v) => !read.has(v.name)).map((v) => v.name);
    expect(unread).toEqual([]);
  });
});
