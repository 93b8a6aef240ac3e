/**
 * Builds the web console into dist/console/: one script and one stylesheet bundled by esbuild, named by their
 * content hash so the server can let browsers keep them for good, an index.html that names them, and a gzip copy
 * of each text file so the server never compresses on the fly. Run by `npm run build`.
 *
 * The bundle must stay small (the console ships inside Ferry and loads on every visit): the build fails when the
 * gzipped total passes CONSOLE_BUDGET_BYTES.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const CONSOLE_BUDGET_BYTES = 150 * 1024;

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(here, '../../dist/console');

async function main(): Promise<void> {
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
  console.log(`console: ${script}, ${style}, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
}

await main();
