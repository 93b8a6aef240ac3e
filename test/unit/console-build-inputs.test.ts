import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtAlready, recordBuild, type BuildRecord } from '../../src/console/build-inputs.js';

/** A source tree and an output directory, with one recorded build of them. */
function recorded(): { record: BuildRecord; source: string; output: string } {
  const root = mkdtempSync(join(tmpdir(), 'ferry-console-inputs-'));
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'dist'));
  const source = join(root, 'src', 'main.tsx');
  writeFileSync(source, 'export const a = 1;\n');
  const output = join(root, 'dist', 'console-ABC.js');
  writeFileSync(output, 'x');
  const record: BuildRecord = { file: join(root, 'inputs.json'), root, outDir: join(root, 'dist'), bundler: '0.28.2' };
  recordBuild(record, [source, join(root, 'src', 'absent.ts')], ['console-ABC.js']);
  return { record, source, output };
}

describe('the console build record', () => {
  it('says the build is done while its inputs and outputs are as recorded, whatever their times', () => {
    const { record, source } = recorded();
    expect(builtAlready(record)).toBe(true);
    utimesSync(source, new Date(), new Date(Date.now() + 60_000));
    expect(builtAlready(record)).toBe(true);
  });

  it.each<[string, (r: ReturnType<typeof recorded>) => BuildRecord]>([
    ['a source changed', (r) => (writeFileSync(r.source, 'export const a = 2;\n'), r.record)],
    ['a source is gone', (r) => (rmSync(r.source), r.record)],
    ['a file that was missing appeared', (r) => (writeFileSync(join(r.record.root, 'src', 'absent.ts'), ''), r.record)],
    ['an output is gone', (r) => (rmSync(r.output), r.record)],
    ['another bundler version', (r) => ({ ...r.record, bundler: '0.29.0' })],
    ['no record', (r) => ({ ...r.record, file: join(r.record.root, 'none.json') })],
  ])('asks for a build when %s', (_, change) => {
    expect(builtAlready(change(recorded()))).toBe(false);
  });
});
