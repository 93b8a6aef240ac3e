/**
 * What an unlogged batch spanning partitions costs in time, against the same rows sent as separate writes at once:
 * the choice behind the accept path's shared writes (a group of requests is two such batches).
 *
 * Each unit of work writes N new rows, each in a partition of its own (300-byte values), either as one unlogged
 * batch or as N single writes started together; `--callers` units are under way at once. Reports the latency of
 * a unit (p50, p90), rows written per second and the Cassandra process's CPU per row.
 *
 *   bash test/infra/infra.sh up && npx tsx test/bench/cassandra-batches.ts [--rows-per-unit 1,8,16] \
 *     [--callers 1,16] [--units 400]
 */
import './distributed-env.js';
import type { Statement } from '../../src/adapters/cassandra/session.js';
import { cpuMeter, coresOf } from './cpu-meter.js';
import { assertInfra, forEachBounded, infraPids, parseArgs, percentile, printTable, round, sortedFinite, withScratchKeyspace } from './distributed-cluster.js';

const args = parseArgs();
const sizes = (args.get('rows-per-unit') ?? '1,8,16').split(',').map(Number);
const callerCounts = (args.get('callers') ?? '1,16').split(',').map(Number);
const units = Number(args.get('units') ?? 400);
/** Units written before each measured run, so the JIT of both processes has seen the statement. */
const WARM_UNITS = 50;

await assertInfra();
const cassandraPid = infraPids().cassandra;
const value = Buffer.alloc(300, 1);
let nextKey = 0;
const table: (string | number)[][] = [];

await withScratchKeyspace('batches', async (session, ks) => {
  await session.execute(`CREATE TABLE ${ks}.t (k text PRIMARY KEY, v blob)`, [], 'creating a scratch table');
  const rowsOfUnit = (size: number): Statement[] =>
    Array.from({ length: size }, () => ({ query: `INSERT INTO ${ks}.t (k, v) VALUES (?, ?)`, params: [`k${nextKey++}`, value] }));
  const ways: Record<string, (statements: Statement[]) => Promise<unknown>> = {
    'one batch': (statements) => session.batch(statements, 'writing a batch', { logged: false }),
    'separate writes at once': (statements) =>
      Promise.all(statements.map((s) => session.execute(s.query, s.params!, 'writing a row', { idempotent: true }))),
  };
  for (const callers of callerCounts) {
    for (const size of sizes) {
      for (const [way, write] of Object.entries(ways)) {
        if (size === 1 && way !== 'one batch') continue;
        // A single row is written as a plain write either way.
        const unit = size === 1 ? ways['separate writes at once']! : write;
        await forEachBounded(WARM_UNITS, callers, () => unit(rowsOfUnit(size)).then(() => undefined));
        const latencies: number[] = [];
        const meter = cpuMeter([['cassandra', cassandraPid]]);
        const start = performance.now();
        await forEachBounded(units, callers, async () => {
          const began = performance.now();
          await unit(rowsOfUnit(size));
          latencies.push(performance.now() - began);
        });
        const seconds = (performance.now() - start) / 1000;
        const cores = coresOf(meter.stop(), 'cassandra');
        const sorted = sortedFinite(latencies);
        const rowsPerSecond = (units * size) / seconds;
        table.push([
          callers,
          size,
          size === 1 ? 'single write' : way,
          percentile(sorted, 50).toFixed(1),
          percentile(sorted, 90).toFixed(1),
          round(rowsPerSecond),
          round((cores * 1e6) / rowsPerSecond),
        ]);
      }
    }
  }
});
printTable(
  `Rows in partitions of their own, ${units} units per line`,
  ['callers at once', 'rows per unit', 'written as', 'p50 ms', 'p90 ms', 'rows/s', 'cassandra CPU µs per row'],
  table,
);
