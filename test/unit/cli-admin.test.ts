import { describe, expect, it } from 'vitest';
import { keyJson } from '../../src/cli/admin-output.js';
import { parseCommandArgs, usageOf, UsageError, type CommandSpec } from '../../src/cli/args.js';
import { storageInUse } from '../../src/cli/storage-access.js';
import { effectiveConfig, loadConfig } from '../../src/config/config.js';

const spec: CommandSpec = {
  words: ['project', 'update'],
  summary: 'change a project',
  options: [
    { name: 'name', kind: 'string', value: 'NAME', help: 'a name' },
    { name: 'monthly-allowance', kind: 'count', value: 'N', help: 'requests a month', min: 0, max: 1_000 },
    { name: 'retention-days', kind: 'count', value: 'N', help: 'days kept', min: 1, max: 3650 },
  ],
};

function refusal(args: string[]): string {
  try {
    parseCommandArgs(spec, args);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as UsageError).message;
  }
  throw new Error(`${args.join(' ')} was accepted`);
}

describe('count options', () => {
  it.each<[string[], string]>([
    [['--monthly-allowance', '-5'], '--monthly-allowance -5 is out of range: it takes a whole number from 0 to 1000'],
    [['--monthly-allowance=-5'], '--monthly-allowance -5 is out of range: it takes a whole number from 0 to 1000'],
    [['--monthly-allowance', '1001'], '--monthly-allowance 1001 is out of range: it takes a whole number from 0 to 1000'],
    [['--retention-days', '0'], '--retention-days 0 is out of range: it takes a whole number from 1 to 3650'],
    [['--monthly-allowance', '99999999999999999999'], '--monthly-allowance 99999999999999999999 is out of range'],
    [['--monthly-allowance', '-1.5'], "--monthly-allowance takes a whole number, got '-1.5'"],
    [['--monthly-allowance', 'many'], "--monthly-allowance takes a whole number, got 'many'"],
  ])('%j is refused saying why', (args, message) => {
    expect(refusal(args)).toContain(message);
  });

  it('takes values within range, and leaves a negative number after a text option to the parser', () => {
    const parsed = parseCommandArgs(spec, ['--monthly-allowance', '0', '--retention-days', '3650']);
    expect([parsed.count('monthly-allowance'), parsed.count('retention-days')]).toEqual([0, 3650]);
    // A text value that starts with '-' still needs the = form: it may be a mistyped option.
    expect(refusal(['--name', '-5'])).toContain("option '--name' needs a value");
    expect(parseCommandArgs(spec, ['--name=-5']).string('name')).toBe('-5');
  });

  it('states each range in the usage', () => {
    expect(usageOf(spec)).toMatch(/--monthly-allowance N +requests a month; 0 to 1000\n/);
    expect(usageOf(spec)).toMatch(/--retention-days N +days kept; 1 to 3650\n/);
  });
});

describe('the storage a command names', () => {
  it('names FERRY_DATA_DIR only when it is set, else the default it fell back to', () => {
    const set = { FERRY_DATA_DIR: '/srv/ferry' };
    expect(storageInUse(loadConfig(set), effectiveConfig(set))).toBe('using data directory /srv/ferry (FERRY_DATA_DIR)');
    const line = storageInUse(loadConfig({}), effectiveConfig({}));
    expect(line).toBe(`using data directory ${process.cwd()}/.data (the default ./.data; FERRY_DATA_DIR is not set)`);
    expect(line).not.toContain('(FERRY_DATA_DIR)');
  });

  it('names FERRY_CASSANDRA_KEYSPACE only when it is set', () => {
    const env = { FERRY_BACKEND: 'cassandra', FERRY_CASSANDRA_CONTACT_POINTS: '10.0.0.1:9042', FERRY_KAFKA_BROKERS: '10.0.0.1:9092' };
    expect(storageInUse(loadConfig(env), effectiveConfig(env))).toBe(
      'using Cassandra keyspace ferry at 10.0.0.1:9042 (the default keyspace; FERRY_CASSANDRA_KEYSPACE is not set)',
    );
    const named = { ...env, FERRY_CASSANDRA_KEYSPACE: 'shop' };
    expect(storageInUse(loadConfig(named), effectiveConfig(named))).toBe('using Cassandra keyspace shop at 10.0.0.1:9042 (FERRY_CASSANDRA_KEYSPACE)');
  });
});

describe('keys as the commands print them', () => {
  it('shows the key ID and its times, never the hash', () => {
    const shown = keyJson({
      keyId: 'k1',
      projectId: 'prj_1',
      secretHash: new Uint8Array([1, 2, 3]),
      createdAt: Date.UTC(2030, 0, 1),
      revokedAt: null,
      lastUsedAt: Date.UTC(2030, 0, 2, 3, 4),
    });
    expect(shown).toStrictEqual({ key_id: 'k1', created_at: '2030-01-01T00:00:00.000Z', last_used_at: '2030-01-02T03:04:00.000Z', revoked_at: null });
  });
});
