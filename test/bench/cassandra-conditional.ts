/**
 * What a conditional write costs Cassandra, alone and in conditional batches of rows sharing one partition: the
 * figure behind every state change of a request in distributed mode (one Paxos round per change today).
 *
 * Rows already exist (version 0) and each is changed once, `IF version = 0`, as a request's change is made on the
 * version it read. Every write is checked to have applied. Reports rows changed per second and the Cassandra
 * process's CPU per row changed.
 *
 * By default every conditional write goes to a partition of its own, `--at-once` of them under way. With
 * `--shards P` the rows live in P partitions, and each partition takes one conditional write after another, all
 * P at once: what a shard's owner writing its outcomes as batches into one shared partition would see, with
 * Paxos rounds following each other on the same partition.
 *
 * With `--fenced` the same changes are plain writes carrying a chosen timestamp (`USING TIMESTAMP`) instead of a
 * condition: what a shard owner fenced by its ownership epoch would write, where a stale owner's lower timestamp
 * loses each cell. Every row is read back afterwards to check the change is there.
 *
 *   bash test/infra/infra.sh up && npx tsx test/bench/cassandra-conditional.ts [--rows-per-batch 1,8,32] \
 *     [--rows 8000] [--at-once 32] [--shards 12] [--fenced]
 */
import './distributed-env.js';
import { applied, type Statement } from '../../src/adapters/cassandra/session.js';
import { cpuMeter, coresOf } from './cpu-meter.js';
import { assertInfra, forEachBounded, infraPids, parseArgs, printTable, round, withScratchKeyspace } from './distributed-cluster.js';

const args = parseArgs();
const sizes = (args.get('rows-per-batch') ?? '1,8,32').split(',').map(Number);
const rowsPerRun = Number(args.get('rows') ?? 8000);
const atOnce = Number(args.get('at-once') ?? 32);
const shards = args.has('shards') ? Number(args.get('shards')) : null;
const fenced = args.has('fenced');
// Above every timestamp a client would pick from its clock, as an epoch-ordered owner timestamp is.
const FENCED_TIMESTAMP = 2 ** 60;

await assertInfra();
const cassandraPid = infraPids().cassandra;
const rows: (string | number)[][] = [];
await withScratchKeyspace('conditional', async (session, ks) => {
  await session.execute(`CREATE TABLE ${ks}.t (p text, c int, version int, status text, PRIMARY KEY (p, c))`, [], 'creating a scratch table');
  for (const size of sizes) {
    // Each unit of work is one conditional write of `size` rows of one partition.
    const writes = Math.ceil(rowsPerRun / size);
    const partitionOf = (w: number) => (shards === null ? `${size}-${w}` : `${size}-shard-${w % shards}`);
    const firstRowOf = (w: number) => (shards === null ? 0 : Math.floor(w / shards) * size);
    const rowsOf = (w: number, write: (partition: string, row: number) => Statement): Statement[] =>
      Array.from({ length: size }, (_, i) => write(partitionOf(w), firstRowOf(w) + i));
    await forEachBounded(writes, 64, (w) =>
      session.batch(
        rowsOf(w, (partition, row) => ({ query: `INSERT INTO ${ks}.t (p, c, version, status) VALUES (?, ?, 0, 'queued')`, params: [partition, row] })),
        'seeding',
        { logged: false },
      ).then(() => undefined),
    );
    const change = (partition: string, row: number): Statement =>
      fenced
        ? { query: `UPDATE ${ks}.t USING TIMESTAMP ? SET version = 1, status = 'succeeded' WHERE p = ? AND c = ?`, params: [FENCED_TIMESTAMP, partition, row] }
        : { query: `UPDATE ${ks}.t SET version = 1, status = 'succeeded' WHERE p = ? AND c = ? IF version = 0`, params: [partition, row] };
    let notApplied = 0;
    const write = async (w: number) => {
      const statements = rowsOf(w, change);
      const result =
        statements.length === 1
          ? await session.execute(statements[0]!.query, statements[0]!.params!, 'changing a row')
          : await session.batch(statements, 'changing rows', { logged: false });
      if (!fenced && !applied(result)) notApplied++;
    };
    const meter = cpuMeter([['cassandra', cassandraPid]]);
    const start = performance.now();
    if (shards === null) await forEachBounded(writes, atOnce, write);
    else {
      // One pipeline per partition: its next write starts when the previous one answered.
      await Promise.all(
        Array.from({ length: shards }, async (_, shard) => {
          for (let w = shard; w < writes; w += shards) await write(w);
        }),
      );
    }
    const seconds = (performance.now() - start) / 1000;
    const cores = coresOf(meter.stop(), 'cassandra');
    const perSecond = (writes * size) / seconds;
    if (fenced) {
      // A plain write has no answer saying it applied: read each row back instead.
      await forEachBounded(writes, 64, async (w) => {
        for (const statement of rowsOf(w, (partition, row) => ({ query: `SELECT version FROM ${ks}.t WHERE p = ? AND c = ?`, params: [partition, row] }))) {
          const rs = await session.execute(statement.query, statement.params!, 'reading a row back', { idempotent: true });
          if (rs.first()?.['version'] !== 1) notApplied++;
        }
      });
    }
    rows.push([size, round(writes / seconds), round(perSecond), cores.toFixed(2), round((cores * 1e6) / perSecond), notApplied]);
  }
});
const kind = fenced ? 'Fenced writes (USING TIMESTAMP, no condition)' : 'Conditional writes';
printTable(
  shards === null
    ? `${kind}, ${atOnce} at once, each to a partition of its own, ${rowsPerRun} rows changed per size`
    : `${kind} to ${shards} partitions, one after another in each, ${rowsPerRun} rows changed per size`,
  ['rows per write', 'writes/s', 'rows changed/s', 'cassandra cores', 'cassandra CPU µs per row', 'not applied'],
  rows,
);
