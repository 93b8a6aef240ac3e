/**
 * What a conditional write costs Cassandra, alone and in conditional batches of rows sharing one partition: the
 * figure behind every state change of a request in distributed mode (one Paxos round per change today).
 *
 * Rows already exist (version 0) and each is changed once, `IF version = 0`, as a request's change is made on the
 * version it read. Every write is checked to have applied. Reports rows changed per second and the Cassandra
 * process's CPU per row changed.
 *
 *   bash test/infra/infra.sh up && npx tsx test/bench/cassandra-conditional.ts [--rows-per-batch 1,8,32] \
 *     [--rows 8000] [--at-once 32]
 */
import './distributed-env.js';
import { CassandraSession, applied, type Statement } from '../../src/adapters/cassandra/session.js';
import { infra } from '../support/infra.js';
import { cpuMeter, coresOf } from './cpu-meter.js';
import { assertInfra, forEachBounded, infraPids, parseArgs, printTable, round } from './distributed-cluster.js';

const args = parseArgs();
const sizes = (args.get('rows-per-batch') ?? '1,8,32').split(',').map(Number);
const rowsPerRun = Number(args.get('rows') ?? 8000);
const atOnce = Number(args.get('at-once') ?? 32);

await assertInfra();
const cassandraPid = infraPids().cassandra;
const session = await CassandraSession.connect({
  contactPoints: [infra.cassandra.contactPoint],
  localDataCenter: infra.cassandra.localDataCenter,
  keyspace: 'system',
  replication: '',
});
const ks = `ferry_bench_conditional_${process.pid}`;
const rows: (string | number)[][] = [];
try {
  await session.execute(`CREATE KEYSPACE ${ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`, [], 'creating a scratch keyspace');
  await session.execute(`CREATE TABLE ${ks}.t (p text, c int, version int, status text, PRIMARY KEY (p, c))`, [], 'creating a scratch table');
  for (const size of sizes) {
    const partitions = Math.ceil(rowsPerRun / size);
    const rowsOf = (p: number, write: (partition: string, row: number) => Statement): Statement[] =>
      Array.from({ length: size }, (_, row) => write(`${size}-${p}`, row));
    await forEachBounded(partitions, 64, (p) =>
      session.batch(
        rowsOf(p, (partition, row) => ({ query: `INSERT INTO ${ks}.t (p, c, version, status) VALUES (?, ?, 0, 'queued')`, params: [partition, row] })),
        'seeding',
        { logged: false },
      ).then(() => undefined),
    );
    const change = (partition: string, row: number): Statement => ({
      query: `UPDATE ${ks}.t SET version = 1, status = 'succeeded' WHERE p = ? AND c = ? IF version = 0`,
      params: [partition, row],
    });
    let notApplied = 0;
    const meter = cpuMeter([['cassandra', cassandraPid]]);
    const start = performance.now();
    await forEachBounded(partitions, atOnce, async (p) => {
      const statements = rowsOf(p, change);
      const result =
        statements.length === 1
          ? await session.execute(statements[0]!.query, statements[0]!.params!, 'changing a row')
          : await session.batch(statements, 'changing rows', { logged: false });
      if (!applied(result)) notApplied++;
    });
    const seconds = (performance.now() - start) / 1000;
    const cores = coresOf(meter.stop(), 'cassandra');
    const perSecond = (partitions * size) / seconds;
    rows.push([size, round(partitions / seconds), round(perSecond), cores.toFixed(2), round((cores * 1e6) / perSecond), notApplied]);
  }
} finally {
  await session.execute(`DROP KEYSPACE IF EXISTS ${ks}`, [], 'dropping the scratch keyspace').catch(() => undefined);
  await session.close();
}
printTable(
  `Conditional writes, ${atOnce} at once, ${rowsPerRun} rows changed per size`,
  ['rows per conditional write', 'writes/s', 'rows changed/s', 'cassandra cores', 'cassandra CPU µs per row', 'not applied'],
  rows,
);
