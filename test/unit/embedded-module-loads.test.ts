import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);
const SERVICE = resolve(import.meta.dirname, '../../src/runtime/service.ts');

/** Which driver packages a fresh Node process has loaded after importing the composition root. */
async function driversLoadedBy(script: string): Promise<{ cassandra: boolean; kafka: boolean }> {
  const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: resolve(import.meta.dirname, '../..'),
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { cassandra: boolean; kafka: boolean };
}

const REPORT = `
  const { createRequire } = await import('node:module');
  const loaded = Object.keys(createRequire(import.meta.url).cache);
  console.log(JSON.stringify({
    cassandra: loaded.some((m) => m.includes('/cassandra-driver/')),
    kafka: loaded.some((m) => m.includes('/kafkajs/')),
  }));`;

// Each case starts a Node process that compiles the composition root's whole import graph with tsx: seconds on a
// busy machine, more than the unit project's default 5 s.
const PROCESS_TIMEOUT_MS = 30_000;

describe('composition root', () => {
  it('leaves the Cassandra and Kafka clients unloaded in an embedded process', async () => {
    expect(await driversLoadedBy(`await import(${JSON.stringify(SERVICE)});${REPORT}`)).toEqual({ cassandra: false, kafka: false });
  }, PROCESS_TIMEOUT_MS);

  it('loads them once the distributed backend is asked for', async () => {
    // The module the composition root imports for FERRY_BACKEND=cassandra; importing it opens no connection.
    const distributed = resolve(import.meta.dirname, '../../src/runtime/distributed-storage.ts');
    expect(await driversLoadedBy(`await import(${JSON.stringify(distributed)});${REPORT}`)).toEqual({ cassandra: true, kafka: true });
  }, PROCESS_TIMEOUT_MS);
});
