import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { projectAdmin } from '../../src/runtime/storage.js';
import { backendEnv, childEnv, openTestBackend, prepareStorage, type TestBackend } from './deployment.js';

const execFileAsync = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');
const MAX_KEPT_OUTPUT = 16 * 1024 * 1024;

export interface FerryProcess {
  readonly baseUrl: string;
  readonly grpcAddress: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  /**
   * Hands `follow` everything the process wrote on stderr so far, then each later chunk. Output written between
   * start-up and the first call is kept for it, so a log line (a shard assignment, say) is never missed.
   */
  followOutput(follow: (text: string) => void): void;
  /** Sends SIGTERM and waits for the exit code. */
  stop(): Promise<number | null>;
  /** Sends SIGKILL and waits for the process to be gone. */
  kill(): Promise<void>;
}

export function newDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'ferry-test-'));
}

/** Starts the built `ferry serve` on free ports and waits until it reports that it listens. */
export async function startFerry(
  opts: { dataDir?: string; env?: Record<string, string>; backend?: TestBackend } = {},
): Promise<FerryProcess> {
  const dataDir = opts.dataDir ?? newDataDir();
  // Extra node flags for the server only, e.g. FERRY_TEST_NODE_ARGS="--cpu-prof" when profiling a benchmark.
  const nodeArgs = process.env.FERRY_TEST_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  await prepareStorage(dataDir, opts.backend);
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'serve'], {
    env: childEnv({ ...backendEnv(dataDir, opts.backend), FERRY_HTTP_PORT: '0', FERRY_GRPC_PORT: '0', ...opts.env }),
    // FERRY_TEST_STDOUT=inherit shows what node itself prints on stdout, e.g. with FERRY_TEST_NODE_ARGS="--trace-gc".
    stdio: ['ignore', process.env.FERRY_TEST_STDOUT === 'inherit' ? 'inherit' : 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  // What was written on stderr, kept for followOutput (bounded: a long benchmark keeps only the recent part).
  let output = '';
  const followers: Array<(text: string) => void> = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    output += text;
    // Trimmed at a line start, so a late follower never sees half a log line.
    if (output.length > MAX_KEPT_OUTPUT) output = output.slice(output.indexOf('\n', output.length - MAX_KEPT_OUTPUT / 2) + 1);
    // A copy: the start-up watcher removes itself while being called.
    for (const f of [...followers]) f(text);
  });
  const ports = await new Promise<{ http: number; grpc: number }>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`ferry did not start in time:\n${output}`)), 40_000);
    const watch = (): void => {
      for (const line of output.split('\n')) {
        if (!line.includes('"listening"')) continue;
        const parsed = JSON.parse(line) as { http_port: number; grpc_port: number };
        clearTimeout(timer);
        followers.splice(followers.indexOf(watch), 1);
        res({ http: parsed.http_port, grpc: parsed.grpc_port });
        return;
      }
    };
    followers.push(watch);
    void exited.then((code) => rej(new Error(`ferry exited with ${code} before listening:\n${output}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${ports.http}`,
    grpcAddress: `127.0.0.1:${ports.grpc}`,
    dataDir,
    child,
    followOutput(follow) {
      follow(output);
      followers.push(follow);
    },
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs the `ferry` CLI against a data directory and parses its JSON output. */
export async function ferryCli(dataDir: string, args: readonly string[], backend?: TestBackend): Promise<Record<string, unknown>> {
  await prepareStorage(dataDir, backend);
  const { stdout } = await execFileAsync(process.execPath, [CLI, ...args], {
    env: childEnv(backendEnv(dataDir, backend)),
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/**
 * Creates a project in the deployment of `dataDir` as `ferry project create` does (the same application service,
 * run in this process: a CLI process per project cost half a second of a core each, and the tests create
 * hundreds; the CLI's own tests run the command itself).
 */
export async function createProject(
  dataDir: string,
  opts: { name?: string; monthlyAllowance?: number; scheduleAllowance?: number; retentionDays?: number; captureResponseBodies?: boolean } = {},
): Promise<{ projectId: string; apiKey: string; signingSecret: string }> {
  await prepareStorage(dataDir);
  const backend = await openTestBackend(dataDir);
  try {
    const given = {
      monthlyAllowance: opts.monthlyAllowance,
      scheduleAllowance: opts.scheduleAllowance,
      retentionDays: opts.retentionDays,
      captureResponseBodies: opts.captureResponseBodies,
    };
    const settings = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
    const { project, apiKey, signingSecret } = await projectAdmin(backend).createProject({ ...settings, name: opts.name ?? 'test' });
    return { projectId: project.id, apiKey: apiKey.token, signingSecret };
  } finally {
    await backend.close();
  }
}
