/**
 * Builds the web console into dist/console/: one script and one stylesheet bundled by esbuild, named by their
 * content hash so the server can let browsers keep them for good, an index.html that names them, and a gzip copy
 * of each text file so the server never compresses on the fly. Run by `npm run build`.
 *
 * The bundle must stay small (the console ships inside Ferry and loads on every visit): the build fails when the
 * gzipped total passes CONSOLE_BUDGET_BYTES.
 *
 * With `--if-changed` (`npm start`) it builds only when something the last build read has changed: every file
 * esbuild bundled, the page template, the TypeScript settings, this script and the esbuild version.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, version as esbuildVersion } from 'esbuild';
import { builtAlready, recordBuild, type BuildRecord } from './build-inputs.js';

const CONSOLE_BUDGET_BYTES = 150 * 1024;

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const out = resolve(root, 'dist/console');
/** What the last build read and wrote: beside, not among, what is served. */
const RECORD: BuildRecord = { file: resolve(root, 'dist/.console-inputs.json'), root, outDir: out, bundler: esbuildVersion };

async function main(): Promise<void> {
  if (process.argv.includes('--if-changed') && builtAlready(RECORD)) {
    console.log('console: unchanged, not rebuilt');
    return;
  }
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await build({
    entryPoints: { console: join(here, 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(here, 'tsconfig.json'),
    entryNames: '[name]-[hash]',
    outdir: out,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    // Input paths in the metafile are then relative to the repository root, wherever the build is run from.
    absWorkingDir: root,
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const script = outputs.find((f) => f.endsWith('.js'));
  const style = outputs.find((f) => f.endsWith('.css'));
  if (!script || !style) throw new Error(`the console build wrote ${outputs.join(', ')}: a script and a stylesheet were expected`);
  const page = readFileSync(join(here, 'index.html'), 'utf8').replace('{{script}}', script).replace('{{style}}', style);
  writeFileSync(join(out, 'index.html'), page);

  let gzipped = 0;
  for (const file of ['index.html', script, style]) {
    const packed = gzipSync(readFileSync(join(out, file)), { level: 9 });
    writeFileSync(join(out, `${file}.gz`), packed);
    gzipped += packed.byteLength;
  }
  if (gzipped > CONSOLE_BUDGET_BYTES) {
    throw new Error(`the console is ${gzipped} bytes gzipped, over its budget of ${CONSOLE_BUDGET_BYTES}`);
  }
  // Recorded last, so a build that failed half-way is never taken for a finished one.
  const settings = [join(here, 'tsconfig.json'), join(root, 'tsconfig.json'), join(here, 'index.html'), fileURLToPath(import.meta.url), join(here, 'build-inputs.ts')];
  const written = ['index.html', script, style].flatMap((f) => [f, `${f}.gz`]);
  recordBuild(RECORD, [...Object.keys(result.metafile.inputs).map((p) => resolve(root, p)), ...settings], written);
  console.log(`console: ${script}, ${style}, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
}

await main();
