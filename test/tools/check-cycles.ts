/**
 * Fails when files of `src/` import each other in a loop, type-only imports and `import()` included: a loop ties
 * its files into one piece that can be neither understood nor changed one file at a time. Run with tsx.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names (imports end in `.js` and name the `.ts` beside it); null for packages. */
function resolveImport(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => c.startsWith(SRC) && existsSync(c)) ?? null;
}

function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return [...new Set(importedFiles.flatMap((i) => resolveImport(file, i.fileName) ?? []))];
}

/** Groups of files that reach each other (Tarjan's strongly connected components), larger than one file or looping on one. */
function loops(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let top = stack.pop()!; ; top = stack.pop()!) {
      onStack.delete(top);
      group.push(top);
      if (top === file) break;
    }
    if (group.length > 1 || graph.get(file)?.includes(file)) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const graph = new Map(sourceFiles(SRC).map((file) => [file, importsOf(file)] as const));
const found = loops(graph);
if (found.length === 0) {
  console.log(`No import loops among ${graph.size} files of src/.`);
} else {
  console.error(`Import loops in src/ (each group's files reach one another):`);
  for (const group of found) {
    console.error(`  ${group.map((f) => relative(ROOT, f)).join('\n    ')}`);
  }
  process.exit(1);
}
