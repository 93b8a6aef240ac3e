import { Worker } from 'node:worker_threads';

/**
 * Starts the worker thread whose entry module is `name` (without extension) next to the module at `here`.
 * Built, the entry is JavaScript beside it. Run from the TypeScript sources (tests, tsx), the thread loads the entry
 * through tsx itself: a worker does not inherit a test runner's hooks, and on Node 20 neither `--import tsx` in a
 * worker's execArgv nor tsx's own registration applies to a worker's entry module.
 */
export function startWorkerThread(here: string, name: string, workerData: unknown): Worker {
  if (!here.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), { workerData });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL(`./${name}.ts`, here).href);
  const boot = `import(${tsx}).then((tsx) => tsx.tsImport(${entry}, ${JSON.stringify(here)}));`;
  return new Worker(boot, { eval: true, workerData });
}
