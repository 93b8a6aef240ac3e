/**
 * Writes openapi/ferry.openapi.json from the service descriptors in src/gen and the comments of the proto
 * sources. With `--check` it writes nothing and exits 1 when the committed document differs.
 *
 *   npx tsx test/tools/openapi-gen.ts [--check]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DescFile, DescService } from '@bufbuild/protobuf';
import { loadProtoComments } from './openapi/comments.js';
import { buildOpenApi } from './openapi/document.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const target = join(root, 'openapi/ferry.openapi.json');

/** Every service of the generated code under src/gen/ferry, in file then declaration order. */
async function generatedServices(): Promise<DescService[]> {
  const dir = join(root, 'src/gen/ferry');
  const modules = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('_pb.ts')).sort();
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
    console.error(`${relative(root, target)} is out of date; run: npx tsx test/tools/openapi-gen.ts`);
    process.exit(1);
  }
} else {
  writeFileSync(target, document);
}
