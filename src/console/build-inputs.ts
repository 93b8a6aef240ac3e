import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * What a console build read and wrote, kept beside the build so the next `--if-changed` build can tell whether it
 * has anything to do. Content hashes, not times: a checkout or a touch that leaves a file as it was changes nothing.
 */
interface BuildInputs {
  /** The bundler's version: a new one may bundle the same sources differently. */
  readonly bundler: string;
  /** SHA-256 of each file read, by path from the repository root; null for one that was not there. */
  readonly files: Readonly<Record<string, string | null>>;
  /** The files written, by name in the output directory. */
  readonly outputs: readonly string[];
}

export interface BuildRecord {
  /** The file the record is kept in. */
  readonly file: string;
  readonly root: string;
  readonly outDir: string;
  readonly bundler: string;
}

function digest(path: string): string | null {
  return existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : null;
}

/** Records what a finished build read (absolute paths) and wrote. */
export function recordBuild(record: BuildRecord, read: readonly string[], outputs: readonly string[]): void {
  const files = Object.fromEntries(read.map((path) => [relative(record.root, path), digest(path)]));
  const inputs: BuildInputs = { bundler: record.bundler, files, outputs };
  writeFileSync(record.file, `${JSON.stringify(inputs)}\n`);
}

/** Whether the recorded build's outputs are all there and nothing it read has changed since; false without a record. */
export function builtAlready(record: BuildRecord): boolean {
  let last: BuildInputs;
  try {
    last = JSON.parse(readFileSync(record.file, 'utf8')) as BuildInputs;
  } catch {
    return false;
  }
  return (
    last.bundler === record.bundler &&
    last.outputs.every((name) => existsSync(join(record.outDir, name))) &&
    Object.entries(last.files).every(([path, hash]) => digest(join(record.root, path)) === hash)
  );
}
