import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Api } from '../support/api-client.js';
import { backendEnv, childEnv, TEST_BACKEND } from '../support/deployment.js';
import { createProject, newDataDir, startFerry } from '../support/ferry-process.js';

const execFileAsync = promisify(execFile);
const CLI = join(resolve(import.meta.dirname, '../..'), 'dist/cli/main.js');

function backup(dataDir: string, to: string): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync(process.execPath, [CLI, 'backup', '--to', to], { env: childEnv(backendEnv(dataDir)) });
}

describe.runIf(TEST_BACKEND === 'embedded')('ferry backup', () => {
  it('copies the database while the server runs; a server on the copy has every accepted request', async () => {
    const ferry = await startFerry();
    const { apiKey } = await createProject(ferry.dataDir);
    const api = new Api(ferry.baseUrl, apiKey);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await api.send({ url: 'https://example.com/hook', delay: '1h' }, `n${i}`);
      expect(r.status).toBe(202);
      ids.push((r.body.data as { id: string }).id);
    }
    const restored = newDataDir();
    const copy = join(restored, 'ferry.db');
    try {
      const { stdout, stderr } = await backup(ferry.dataDir, copy);
      expect(JSON.parse(stdout)).toMatchObject({ backup: copy });
      expect(stderr).toContain(`using data directory ${ferry.dataDir}`);
      // A second backup to the same file is refused: nothing is overwritten.
      await expect(backup(ferry.dataDir, copy)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('already exists') });
    } finally {
      await ferry.stop();
    }
    const fromCopy = await startFerry({ dataDir: restored });
    try {
      const copied = new Api(fromCopy.baseUrl, apiKey);
      for (const id of ids) expect((await copied.call<{ status: string }>('GET', `/requests/${id}`)).body.data.status).toBe('scheduled');
    } finally {
      await fromCopy.stop();
    }
  });

  it('refuses a data directory without a database, creating nothing', async () => {
    const empty = newDataDir();
    mkdirSync(empty, { recursive: true });
    await expect(backup(empty, join(empty, 'copy.db'))).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('no Ferry database') });
    expect(existsSync(join(empty, 'ferry.db'))).toBe(false);
    expect(existsSync(join(empty, 'copy.db'))).toBe(false);
  });
});
