import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendEnv, childEnv, prepareStorage, TEST_BACKEND } from '../support/deployment.js';
import { newDataDir } from '../support/ferry-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built CLI to its end. A command that should have answered but started the service instead never ends
 * on its own: the deadline kills it, and the test sees a null exit code.
 */
function ferry(args: readonly string[], env: Record<string, string> = {}, deadlineMs = 20_000, cwd?: string): Promise<Run> {
  return new Promise((res) => {
    const options = { env: childEnv(env), timeout: deadlineMs, killSignal: 'SIGKILL' as const, ...(cwd === undefined ? {} : { cwd }) };
    execFile(process.execPath, [CLI, ...args], options, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
      res({ code, stdout, stderr });
    });
  });
}

/** A stack trace line, which no error a user can fix should print. */
const STACK = /^\s+at /m;

// Argument parsing reaches no storage: once, on the embedded default. Each case is a process of its own, so they
// run side by side.
describe.runIf(TEST_BACKEND === 'embedded').concurrent('command line', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = newDataDir();
  });

  it.each<[string, string[], RegExp]>([
    ['ferry --help', ['--help'], /^Usage: ferry <command> \[options\][\s\S]*project create/],
    ['ferry -h', ['-h'], /^Usage: ferry <command>/],
    ['ferry help project create', ['help', 'project', 'create'], /^Usage: ferry project create --name NAME/],
    ['ferry serve --help', ['serve', '--help'], /^Usage: ferry serve/],
    ['ferry serve -h', ['serve', '-h'], /^Usage: ferry serve/],
    ['ferry migrate --help', ['migrate', '--help'], /^Usage: ferry migrate/],
    ['ferry project create --help', ['project', 'create', '--help'], /--monthly-allowance N/],
    ['ferry project --help', ['project', '--help'], /^Usage: ferry project <command>[\s\S]*project create[\s\S]*project list[\s\S]*project show[\s\S]*project update/],
    ['ferry project update --help', ['project', 'update', '--help'], /--retention-days N +days finished requests are kept; 1 to 3650\n/],
    ['ferry key revoke -h', ['key', 'revoke', '-h'], /^Usage: ferry key revoke --key KEY/],
    ['ferry key list -h', ['key', 'list', '-h'], /^Usage: ferry key list --project PROJECT_ID[\s\S]*never prints a key or its hash/i],
    ['ferry signing-secret rotate --help', ['signing-secret', 'rotate', '--help'], /--overlap-hours N/],
    ['ferry config --help', ['config', '--help'], /FERRY_METRICS_PORT/],
    ['ferry --version', ['--version'], new RegExp(`^${VERSION.replaceAll('.', '\\.')}\\n$`)],
    ['ferry version', ['version'], new RegExp(`^${VERSION.replaceAll('.', '\\.')}\\n$`)],
  ])('%s prints on stdout and exits 0, starting nothing', async (_, args, stdout) => {
    const run = await ferry(args, { FERRY_DATA_DIR: dataDir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(stdout);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it.each<[string[], string, string]>([
    [['project', 'create', '--name', 'x', '--bogus', '1'], "unknown option '--bogus' for 'project create'", 'ferry project create --help'],
    [['serve', '--bogus'], "unknown option '--bogus' for 'serve'", 'ferry serve --help'],
    [['migrate', '--force'], "unknown option '--force' for 'migrate'", 'ferry migrate --help'],
    [['key', 'revoke', '--key', 'k', 'extra'], "unexpected argument 'extra' for 'key revoke'", 'ferry key revoke --help'],
    [['project', 'create', '--name'], "option '--name' needs a value for 'project create'", 'ferry project create --help'],
    [['project', 'create', '--name', '--bogus'], "option '--name' needs a value", 'ferry project create --help'],
    [['project', 'create'], "'project create' needs --name NAME", 'ferry project create --help'],
    [['project', 'create', '--name', 'x', '--monthly-allowance', 'many'], "--monthly-allowance takes a whole number, got 'many'", 'ferry project create --help'],
    [
      ['project', 'create', '--name', 'x', '--monthly-allowance', '-5'],
      '--monthly-allowance -5 is out of range: it takes a whole number from 0 to 1000000000000',
      'ferry project create --help',
    ],
    [['project', 'update', '--project', 'prj_x', '--retention-days', '0'], '--retention-days 0 is out of range: it takes a whole number from 1 to 3650', 'ferry project update --help'],
    [['project', 'update', '--project', 'prj_x'], "'project update' needs at least one of --name, --monthly-allowance", 'ferry project update --help'],
    [['signing-secret', 'rotate', '--project', 'prj_x', '--overlap-hours', '9000'], '--overlap-hours 9000 is out of range', 'ferry signing-secret rotate --help'],
    [['serve', '--help=yes'], "option '--help' takes no value for 'serve'", 'ferry serve --help'],
    [['frobnicate'], "unknown command 'frobnicate'", 'ferry --help'],
    [['serv'], "unknown command 'serv' (did you mean 'serve'?)", 'ferry --help'],
    [['project', 'creat', '--name', 'x'], "unknown command 'project creat' (did you mean 'project create'?)", 'ferry project --help'],
    [['project'], "'project' needs a command: create, list, show, update", 'ferry project --help'],
    [['key'], "'key' needs a command: create, list, revoke", 'ferry key --help'],
    [['--bogus'], "unknown option '--bogus'", 'ferry --help'],
    [['--version', 'now'], "unexpected argument 'now' for 'version'", 'ferry version --help'],
  ])('ferry %j exits 2 with one line saying what is wrong, and a pointer to --help', async (args, error, help) => {
    const run = await ferry(args, { FERRY_DATA_DIR: dataDir });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const [line, hint, ...more] = run.stderr.split('\n');
    expect(line).toMatch(/^ferry: /);
    expect(line).toContain(error);
    expect(hint).toBe(`Run '${help}' for usage.`);
    expect(more).toEqual(['']);
    // Nothing was done: no project created, no database started.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('ferry alone prints the usage on stderr and exits 2', async () => {
    const run = await ferry([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^Usage: ferry <command>/);
  });
});

describe.concurrent('configuration errors stop every command', () => {
  it.each<[string[]]>([[['serve']], [['migrate']], [['config']], [['project', 'create', '--name', 'x']], [['key', 'revoke', '--key', 'k']]])(
    'ferry %j with a misspelt variable exits 2 and suggests the right name',
    async (args) => {
      const dataDir = newDataDir();
      const run = await ferry(args, { ...backendEnv(dataDir), FERRY_HTTP_PORT: '0', FERRY_GRPC_PORT: '0', FERRY_DELIVERY_THRAEDS: '2' });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^ferry: unknown variable FERRY_DELIVERY_THRAEDS \(did you mean FERRY_DELIVERY_THREADS\?\)/);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    },
  );

  it.each<[Record<string, string>, string]>([
    [{ FERRY_TLS_CERT_FILE: '/nonexistent/cert.pem', FERRY_TLS_KEY_FILE: '/nonexistent/key.pem' }, 'FERRY_TLS_CERT_FILE=/nonexistent/cert.pem'],
    [{ FERRY_DELIVERY_CA_FILE: '/nonexistent/ca.pem' }, 'FERRY_DELIVERY_CA_FILE=/nonexistent/ca.pem'],
    [{ FERRY_DELIVERY_CA_FILE: '/' }, 'FERRY_DELIVERY_CA_FILE=/'],
    [{ FERRY_LOG_LEVEL: 'loud' }, 'FERRY_LOG_LEVEL must be one of'],
  ])('serve refuses an unusable setting in one line naming it (%#)', async (env, named) => {
    const dataDir = newDataDir();
    const run = await ferry(['serve'], { ...backendEnv(dataDir), FERRY_HTTP_PORT: '0', FERRY_GRPC_PORT: '0', ...env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(named);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('ferry config', () => {
  it('prints every variable with its value and source, secrets masked', async () => {
    const run = await ferry(['config'], {
      FERRY_DATA_DIR: newDataDir(),
      FERRY_HTTP_PORT: '9999',
      FERRY_CASSANDRA_PASSWORD: 'cassandra-secret',
      FERRY_KAFKA_SASL_PASSWORD: 'kafka-secret',
    });
    expect(run.code).toBe(0);
    const shown = JSON.parse(run.stdout) as Record<string, { value: string | null; source: string }>;
    expect(shown.FERRY_HTTP_PORT).toEqual({ value: '9999', source: 'environment' });
    expect(shown.FERRY_HOST).toEqual({ value: '127.0.0.1', source: 'default' });
    expect(shown.FERRY_LOG_LEVEL).toEqual({ value: 'info', source: 'default' });
    expect(shown.FERRY_CASSANDRA_PASSWORD).toEqual({ value: '********', source: 'environment' });
    expect(shown.FERRY_KAFKA_SASL_PASSWORD).toEqual({ value: '********', source: 'environment' });
    expect(run.stdout).not.toMatch(/cassandra-secret|kafka-secret/);
  });
});

describe.runIf(TEST_BACKEND === 'embedded')('administration commands without a database', () => {
  it.each<[string[]]>([
    [['project', 'create', '--name', 'shop']],
    [['key', 'create', '--project', 'prj_01M882C6QYMDRM84NXR33Y8K43']],
    [['key', 'revoke', '--key', 'fry_x']],
    [['signing-secret', 'rotate', '--project', 'prj_01M882C6QYMDRM84NXR33Y8K43']],
  ])('ferry %j names the data directory, exits 1 and creates no database', async (args) => {
    const dataDir = newDataDir();
    const run = await ferry(args, { FERRY_DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`ferry: using data directory ${dataDir}`);
    expect(run.stderr).toContain(`ferry: no Ferry database in ${dataDir}`);
    expect(run.stderr).not.toMatch(STACK);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('names FERRY_DATA_DIR only when it is set, and otherwise the default directory it used', async () => {
    const cwd = newDataDir();
    // An empty variable counts as unset.
    const byDefault = await ferry(['project', 'list'], { FERRY_DATA_DIR: '' }, 20_000, cwd);
    expect(byDefault.code).toBe(1);
    expect(byDefault.stderr).toContain(`ferry: using data directory ${join(cwd, '.data')} (the default ./.data; FERRY_DATA_DIR is not set)\n`);
    expect(byDefault.stderr).not.toContain('(FERRY_DATA_DIR)');
    const dataDir = newDataDir();
    const named = await ferry(['project', 'list'], { FERRY_DATA_DIR: dataDir }, 20_000, cwd);
    expect(named.stderr).toContain(`ferry: using data directory ${dataDir} (FERRY_DATA_DIR)\n`);
  });

  it('migrate creates the database (saying where), and the commands then work', async () => {
    const dataDir = newDataDir();
    const migrated = await ferry(['migrate'], { FERRY_DATA_DIR: dataDir });
    expect(migrated.code).toBe(0);
    expect(JSON.parse(migrated.stdout)).toEqual({ migrated: true });
    expect(migrated.stderr).toContain(`ferry: using data directory ${dataDir}`);
    const created = await ferry(['project', 'create', '--name', 'shop'], { FERRY_DATA_DIR: dataDir });
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'shop' });
  });
});

describe('serve when it cannot listen', () => {
  let taken: Server;
  let takenPort: number;
  /** One deployment for every case: each `serve` gives up before it serves, and the next may use it again. */
  let dataDir: string;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((res) => taken.listen(0, '127.0.0.1', res));
    takenPort = (taken.address() as AddressInfo).port;
    dataDir = newDataDir();
    await prepareStorage(dataDir);
  });
  afterAll(async () => {
    await new Promise((res) => taken.close(res));
  });

  function serve(env: Record<string, string>): Promise<Run> {
    return ferry(['serve'], { ...backendEnv(dataDir), FERRY_HTTP_PORT: '0', FERRY_GRPC_PORT: '0', ...env }, 60_000);
  }

  it.each([['FERRY_HTTP_PORT'], ['FERRY_GRPC_PORT']])('a port in use in %s exits 1 with one line naming it', async (variable) => {
    const run = await serve({ [variable]: String(takenPort) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`ferry: ${variable}=${takenPort}: the port is already in use on 127.0.0.1`);
    expect(run.stderr).not.toMatch(STACK);
  });

  it('an address that is not this machine’s exits 1 naming FERRY_HOST', async () => {
    // 192.0.2.0/24 is reserved for documentation: never an address of this machine.
    const run = await serve({ FERRY_HOST: '192.0.2.1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ferry: FERRY_HOST=192.0.2.1: not an address of this machine');
    expect(run.stderr).not.toMatch(STACK);
  });

  it('a host name that does not resolve exits 1 naming FERRY_HOST', async () => {
    const run = await serve({ FERRY_HOST: 'ferry-test.invalid' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ferry: FERRY_HOST=ferry-test.invalid: the host name does not resolve');
    expect(run.stderr).not.toMatch(STACK);
  });
});

describe('project and key administration', () => {
  let env: Record<string, string>;
  beforeAll(async () => {
    const dataDir = newDataDir();
    await prepareStorage(dataDir);
    env = backendEnv(dataDir);
    // The embedded database is created by a server or by migrate; these commands never create one.
    if (TEST_BACKEND === 'embedded') expect((await ferry(['migrate'], env)).code).toBe(0);
  });

  /** Runs a command that must succeed, and parses what it printed. */
  async function admin<T = Record<string, unknown>>(...args: string[]): Promise<T> {
    const run = await ferry(args, env, 60_000);
    expect(run.stderr).not.toMatch(STACK);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as T;
  }

  it('lists, shows and changes projects, with their usage and keys, never printing a key again', async () => {
    const shop = await admin('project', 'create', '--name', 'shop', '--monthly-allowance', '5000');
    const other = await admin('project', 'create', '--name', 'other');
    const projectId = shop.project_id as string;
    expect(shop.api_key).toMatch(new RegExp(`^fry_${String(shop.key_id)}_`));
    const settings = { name: 'shop', monthly_allowance: 5000, schedule_allowance: 100, retention_days: 30, capture_response_bodies: true, created_at: expect.any(String) };
    expect(shop).toMatchObject({ project_id: projectId, ...settings });

    const listed = await admin<Array<Record<string, unknown>>>('project', 'list');
    expect(listed).toEqual([
      { project_id: projectId, ...settings },
      { project_id: other.project_id, name: 'other', monthly_allowance: 1_000_000, schedule_allowance: 100, retention_days: 30, capture_response_bodies: true, created_at: expect.any(String) },
    ]);

    const now = new Date();
    const shown = await admin('project', 'show', '--project', projectId);
    expect(shown).toEqual({
      project_id: projectId,
      ...settings,
      usage: {
        period_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
        period_end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
        used: 0,
        allowance: 5000,
        remaining: 5000,
        schedules: 0,
        schedule_allowance: 100,
      },
      api_keys: [{ key_id: shop.key_id, created_at: expect.any(String), last_used_at: null, revoked_at: null }],
    });

    const changed = await admin('project', 'update', '--project', projectId, '--name', ' shop (eu) ', '--monthly-allowance', '7', '--schedule-allowance', '0');
    const after = { ...settings, name: 'shop (eu)', monthly_allowance: 7, schedule_allowance: 0 };
    expect(changed).toEqual({ project_id: projectId, ...after });
    expect(await admin('project', 'update', '--project', projectId, '--retention-days', '7')).toEqual({ project_id: projectId, ...after, retention_days: 7 });
    expect(await admin('project', 'update', '--project', projectId, '--capture-response-bodies', 'off')).toMatchObject({ capture_response_bodies: false, retention_days: 7 });
    expect(await admin('project', 'show', '--project', projectId)).toMatchObject({
      ...after,
      retention_days: 7,
      capture_response_bodies: false,
      usage: { allowance: 7, remaining: 7, schedule_allowance: 0 },
    });
    // The other project is untouched.
    expect((await admin('project', 'show', '--project', other.project_id as string)).name).toBe('other');
  });

  it('creates keys printing the key ID that key list shows and key revoke accepts', async () => {
    const project = await admin('project', 'create', '--name', 'keys');
    const projectId = project.project_id as string;
    const second = await admin('key', 'create', '--project', projectId);
    expect(second).toEqual({ project_id: projectId, key_id: expect.any(String), api_key: expect.stringMatching(/^fry_/) });
    expect(second.api_key).toMatch(new RegExp(`^fry_${String(second.key_id)}_`));
    expect(await admin('key', 'revoke', '--key', second.key_id as string)).toEqual({ revoked_key_id: second.key_id });

    const run = await ferry(['key', 'list', '--project', projectId], env, 60_000);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      { key_id: project.key_id, created_at: expect.any(String), last_used_at: null, revoked_at: null },
      { key_id: second.key_id, created_at: expect.any(String), last_used_at: null, revoked_at: expect.any(String) },
    ]);
    // Neither key, nor any part of its secret, is ever printed again.
    for (const key of [project.api_key, second.api_key] as string[]) expect(run.stdout).not.toContain(key.split('_').slice(2).join('_'));
  });

  it.each<[string[], string]>([
    [['project', 'show', '--project', 'prj_01M882C6QYMDRM84NXR33Y8K43'], 'ferry: NOT_FOUND: No project "prj_01M882C6QYMDRM84NXR33Y8K43".'],
    [['project', 'update', '--project', 'prj_01M882C6QYMDRM84NXR33Y8K43', '--name', 'x'], 'ferry: NOT_FOUND: No project "prj_01M882C6QYMDRM84NXR33Y8K43".'],
    [['key', 'list', '--project', 'nonsense'], 'ferry: NOT_FOUND: No project "nonsense".'],
    [['project', 'update', '--project', 'prj_01M882C6QYMDRM84NXR33Y8K43', '--name', '   '], 'ferry: INVALID_FIELD: The project name must be 1 to 120 bytes.'],
  ])('ferry %j exits 1 in one line saying what is wrong', async (args, line) => {
    const run = await ferry(args, env, 60_000);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`${line}\n`);
    expect(run.stderr).not.toMatch(STACK);
  });
});
