import { readFileSync } from 'node:fs';

/**
 * Prints what the durations reporter wrote: each project's total and the slowest files. Files run in parallel, so
 * the totals add up to more than the wall time; they show where the time goes, not how long the run took.
 */
interface FileDuration {
  readonly project: string;
  readonly file: string;
  readonly ms: number;
}

const SLOWEST = 15;
const [path] = process.argv.slice(2);
const rows: FileDuration[] = readFileSync(path!, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as FileDuration);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(9);

const byProject = new Map<string, { ms: number; files: number }>();
for (const r of rows) {
  const p = byProject.get(r.project) ?? { ms: 0, files: 0 };
  byProject.set(r.project, { ms: p.ms + r.ms, files: p.files + 1 });
}
console.log('\nTime in test files, by project:');
for (const [project, p] of [...byProject].sort((a, b) => b[1].ms - a[1].ms)) console.log(`${seconds(p.ms)}  ${project} (${p.files} files)`);
console.log(`\nThe ${SLOWEST} slowest files:`);
for (const r of [...rows].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST)) console.log(`${seconds(r.ms)}  ${r.project}  ${r.file}`);
