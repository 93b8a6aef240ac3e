/**
 * Writes openapi/ferry.openapi.json from the service descriptors in src/gen, the comments of the proto sources and
 * the validation module's field rules. With `--check` it writes nothing and exits 1 when the committed document
 * differs.
 *
 *   npx tsx src/edge/http/openapi/generate.ts [--check]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DescFile, DescService } from '@bufbuild/protobuf';
import { loadProtoComments } from './comments.js';
import { buildOpenApi } from './document.js';

const here = dirname(fileURLToPath(import.meta.url));
// The same four levels up from src/edge/http/openapi and from its build output in dist/.
const root = join(here, '../../../..');
const target = join(root, 'openapi/ferry.openapi.json');

/** Every service of the generated code of the `ferry` package, in file then declaration order. */
async function generatedServices(): Promise<DescService[]> {
  const dir = join(here, '../../../gen/ferry');
  const modules = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /_pb\.[jt]s$/.test(f)).sort();
  const services: DescService[] = [];
  for (const file of modules) {
    const exports = (await import(pathToFileURL(join(dir, file)).href)) as Record<string, unknown>;
    for (const value of Object.values(exports)) {
      if (isFile(value) && value.proto.name.startsWith('ferry/')) services.push(...value.services);
    }
  }
  return services;
}

function isFile(value: unknown): value is DescFile {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'file';
}

const document = `${JSON.stringify(buildOpenApi(await generatedServices(), loadProtoComments(root)), null, 2)}\n`;
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // A missing document differs like any other.
  }
  if (current !== document) {
    console.error(`${relative(root, target)} is out of date; run: npm run generate:openapi`);
    process.exit(1);
  }
} else {
  writeFileSync(target, document);
}
