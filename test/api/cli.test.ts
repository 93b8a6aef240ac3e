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
function ferry(args: readonly string[], env: Record<string, string> = {}, deadlineMs = 20_000): Promise<Run> {
  return new Promise((res) => {
    execFile(process.execPath, [CLI, ...args], { env: childEnv(env), timeout: deadlineMs, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
      res({ code, stdout, stderr });
    });
  });
}

/** A stack trace line, which no error a user can fix should print. */
const STACK = /^\s+at /m;

describe('command line', () => {
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
    ['ferry project --help', ['project', '--help'], /^Usage: ferry project <command>[\s\S]*project create/],
    ['ferry key revoke -h', ['key', 'revoke', '-h'], /^Usage: ferry key revoke --key KEY/],
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
    [['serve', '--help=yes'], "option '--help' takes no value for 'serve'", 'ferry serve --help'],
    [['frobnicate'], "unknown command 'frobnicate'", 'ferry --help'],
    [['serv'], "unknown command 'serv' (did you mean 'serve'?)", 'ferry --help'],
    [['project', 'creat', '--name', 'x'], "unknown command 'project creat' (did you mean 'project create'?)", 'ferry project --help'],
    [['project'], "'project' needs a command: create", 'ferry project --help'],
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

describe('configuration errors stop every command', () => {
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
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((res) => taken.listen(0, '127.0.0.1', res));
    takenPort = (taken.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((res) => taken.close(res));
  });

  async function serve(env: Record<string, string>): Promise<Run> {
    const dataDir = newDataDir();
    await prepareStorage(dataDir);
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
