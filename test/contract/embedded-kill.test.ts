import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { openEmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { PROJECT_A } from './suite/harness.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ferry-kill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Kills the writer once it reported this many durable writes, so the kill lands in the middle of the stream. */
const KILL_AFTER = 2_000;

it('keeps every write that resolved before the process was killed with SIGKILL', async () => {
  const path = join(dir, 'killed.db');
  // tsx as a loader, not as a wrapper process: SIGKILL must hit the process that writes.
  const writer = join(root, 'test/contract/fixtures/embedded-writer.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', writer, path, 'killed'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const acknowledged: string[] = [];
  let partial = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': lines still in the pipe when the process died must be counted too.
  const ended = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    acknowledged.push(...lines);
    if (acknowledged.length >= KILL_AFTER) child.kill('SIGKILL');
  });

  const signal = await ended;
  expect(signal, `writer exited on its own: ${stderr}`).toBe('SIGKILL');
  expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);

  const backend = openEmbeddedBackend({ path });
  try {
    const missing: string[] = [];
    for (const id of acknowledged) if ((await backend.requests.get(PROJECT_A, id)) === null) missing.push(id);
    expect(missing).toEqual([]);
  } finally {
    await backend.close();
  }
});
