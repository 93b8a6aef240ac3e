import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const SDK = join(ROOT, 'sdk');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** What a command printed and how it ended; a failing command is a result to look at, not an exception. */
export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `@ferry/sdk` packed by `npm pack` and installed from the tarball into a scratch project, as a user gets it. */
export interface InstalledSdk {
  /** The scratch project: a package.json, node_modules/@ferry/sdk, and whatever the test writes. */
  readonly dir: string;
  readonly tarball: string;
  /** Every path in the tarball, relative to the package root (`package.json`, `dist/esm/index.js`, …). */
  readonly packedFiles: readonly string[];
  /** The package.json the tarball holds. */
  readonly manifest: { name: string; version: string } & Record<string, unknown>;
  /** What `npm install` of the tarball printed, stdout and stderr (warnings included). */
  readonly installOutput: string;
  /** Links packages from the repository's node_modules into the scratch project (peer dependencies, example deps). */
  linkFromRepo(...names: string[]): void;
  /** Writes a file in the scratch project, creating folders, and returns its path. */
  write(path: string, text: string): string;
  /** Runs a command in the scratch project. */
  run(command: string, args: readonly string[], env?: Record<string, string>): Promise<Run>;
  /** Runs a script with node in the scratch project. */
  node(script: string, env?: Record<string, string>): Promise<Run>;
  /** Runs the repository's TypeScript compiler in the scratch project. */
  tsc(args: readonly string[]): Promise<Run>;
  remove(): void;
}

/**
 * Packs sdk/ the way a fresh clone would (a copy without dist/, under a folder whose node_modules is the
 * repository's, so `prepack` finds tsc and the proto runtime's types as it would in the repository), then installs
 * the tarball offline into an empty project. Packing a copy lets test files run at the same time without one
 * build removing another's dist/ mid-pack.
 */
export async function packAndInstallSdk(): Promise<InstalledSdk> {
  const workspace = mkdtempSync(join(tmpdir(), 'ferry-sdk-pack-'));
  const dir = mkdtempSync(join(tmpdir(), 'ferry-sdk-user-'));
  symlinkSync(join(ROOT, 'node_modules'), join(workspace, 'node_modules'), 'dir');
  const source = join(workspace, 'sdk');
  cpSync(SDK, source, { recursive: true, filter: (path) => !/[\\/](dist|node_modules)$/.test(path) });

  const pack = await run('npm', ['pack', '--pack-destination', workspace], source);
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stdout}\n${pack.stderr}`);
  const tarballName = readdirSync(workspace).find((name) => name.endsWith('.tgz'));
  if (!tarballName) throw new Error(`npm pack wrote no tarball:\n${pack.stdout}`);
  const tarball = join(workspace, tarballName);
  const listing = await run('tar', ['-tzf', tarball], workspace);
  const packedFiles = listing.stdout.split('\n').filter(Boolean).map((entry) => entry.replace(/^package\//, ''));

  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'ferry-sdk-user', version: '1.0.0', private: true }, null, 2)}\n`);
  const install = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], dir);
  if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${install.stdout}\n${install.stderr}`);
  const manifest = JSON.parse(readFileSync(join(dir, 'node_modules/@ferry/sdk/package.json'), 'utf8')) as InstalledSdk['manifest'];

  return {
    dir,
    tarball,
    packedFiles,
    manifest,
    installOutput: `${install.stdout}${install.stderr}`,
    linkFromRepo(...names) {
      for (const name of names) {
        const link = join(dir, 'node_modules', name);
        mkdirSync(dirname(link), { recursive: true });
        rmSync(link, { recursive: true, force: true });
        symlinkSync(join(ROOT, 'node_modules', name), link, 'dir');
      }
    },
    write(path, text) {
      const file = join(dir, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    run: (command, args, env) => run(command, args, dir, env),
    node: (script, env) => run(process.execPath, [script], dir, env),
    tsc: (args) => run(process.execPath, [TSC, ...args], dir),
    remove() {
      rmSync(workspace, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      done({ code, stdout, stderr });
    });
  });
}
