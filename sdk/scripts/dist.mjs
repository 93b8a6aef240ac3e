// The two build steps tsc cannot do: start from an empty dist/, and afterwards copy the generated schema types
// (a .d.ts, which tsc never emits) beside both builds and mark dist/cjs as CommonJS.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { argv, exit, stderr } from 'node:process';
import { fileURLToPath } from 'node:url';

const sdk = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(sdk, 'dist');
const step = argv[2];

if (step === 'clean') {
  rmSync(dist, { recursive: true, force: true });
} else if (step === 'finish') {
  for (const build of ['esm', 'cjs']) {
    mkdirSync(join(dist, build), { recursive: true });
    copyFileSync(join(sdk, 'src/schema.d.ts'), join(dist, build, 'schema.d.ts'));
  }
  writeFileSync(join(dist, 'cjs/package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
} else {
  stderr.write('usage: node scripts/dist.mjs clean|finish\n');
  exit(2);
}
