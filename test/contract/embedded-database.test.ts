import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EmbeddedDatabase, type EmbeddedDatabaseOptions } from '../../src/adapters/embedded/database.js';
import { MIGRATIONS } from '../../src/adapters/embedded/migrations.js';
import { StorageUnavailable } from '../../src/ports/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'ferry-embedded-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const opened: EmbeddedDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
});

function open(options: Partial<EmbeddedDatabaseOptions> = {}): { db: EmbeddedDatabase; path: string } {
  const path = join(dir, `db-${++files}.sqlite`);
  const db = new EmbeddedDatabase({ path, ...options });
  opened.push(db);
  return { db, path };
}

function putSecret(db: EmbeddedDatabase, name: string): void {
  db.statement('INSERT INTO secrets (name, value) VALUES (?, ?)').run(name, new Uint8Array([1]));
}

function secretNames(db: EmbeddedDatabase): string[] {
  return db.read(() => db.statement('SELECT name FROM secrets ORDER BY name').pluck().all() as string[]);
}

describe('EmbeddedDatabase group commit', () => {
  it('runs the writes queued in one turn as one group and settles them only after it committed', async () => {
    const { db } = open();
    const events: string[] = [];
    const writes = Array.from({ length: 20 }, (_, i) =>
      db
        .write(() => {
          events.push(`run ${i}`);
          putSecret(db, `s${i}`);
          return i;
        })
        .then((v) => events.push(`done ${v}`)),
    );
    await Promise.all(writes);
    expect(events.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => `run ${i}`));
    expect(events.slice(20)).toEqual(Array.from({ length: 20 }, (_, i) => `done ${i}`));
  });

  it('commits at most maxGroupSize writes together', async () => {
    const { db } = open({ maxGroupSize: 4 });
    const events: string[] = [];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => db.write(() => events.push(`run ${i}`)).then(() => events.push(`done ${i}`))),
    );
    expect(events.slice(0, 5)).toEqual(['run 0', 'run 1', 'run 2', 'run 3', 'done 0']);
    expect(events.indexOf('run 4')).toBeGreaterThan(events.indexOf('done 3'));
  });

  it('undoes and rejects only the write that threw', async () => {
    const { db } = open();
    const results = await Promise.allSettled([
      db.write(() => putSecret(db, 'a')),
      db.write(() => {
        putSecret(db, 'b');
        throw new RangeError('no');
      }),
      db.write(() => putSecret(db, 'a')),
      db.write(() => putSecret(db, 'c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(RangeError);
    expect((results[2] as PromiseRejectedResult).reason).not.toBeInstanceOf(StorageUnavailable);
    expect(secretNames(db)).toEqual(['a', 'c']);
  });

  it('refuses an asynchronous write function, which would escape the transaction', async () => {
    const { db } = open();
    await expect(db.write(async () => putSecret(db, 'late'))).rejects.toThrow(/synchronous/);
    expect(secretNames(db)).toEqual([]);
  });

  it('fails fast with StorageUnavailable once too many writes are waiting', async () => {
    const { db } = open({ maxPendingWrites: 3 });
    const accepted = [1, 2, 3].map(() => db.write(() => 1));
    await expect(db.write(() => 1)).rejects.toBeInstanceOf(StorageUnavailable);
    await expect(Promise.all(accepted)).resolves.toEqual([1, 1, 1]);
    await expect(db.write(() => 2)).resolves.toBe(2);
  });

  it('rejects the whole group with StorageUnavailable when another process holds the write lock', async () => {
    const { db, path } = open({ busyTimeoutMs: 50 });
    const other = new Database(path);
    try {
      other.exec('BEGIN IMMEDIATE');
      const results = await Promise.allSettled([db.write(() => putSecret(db, 'x')), db.write(() => 2)]);
      for (const r of results) expect(r.status === 'rejected' && r.reason instanceof StorageUnavailable).toBe(true);
      other.exec('ROLLBACK');
      await expect(db.write(() => putSecret(db, 'y'))).resolves.toBeUndefined();
      expect(secretNames(db)).toEqual(['y']);
    } finally {
      other.close();
    }
  });

  it('reports a full disk as StorageUnavailable for the write that hit it', async () => {
    const { db } = open();
    const pages = db.read(() => db.statement('PRAGMA page_count').pluck().get() as number);
    db.read(() => db.statement(`PRAGMA max_page_count = ${pages}`).get());
    const big = new Uint8Array(1024 * 1024);
    await expect(db.write(() => db.statement('INSERT INTO secrets VALUES (?, ?)').run('big', big))).rejects.toBeInstanceOf(
      StorageUnavailable,
    );
  });

  it('applies the schema once and reopens a file at its current version', async () => {
    const { db, path } = open();
    await db.close();
    const again = new EmbeddedDatabase({ path });
    opened.push(again);
    const versions = again.read(() => again.statement('SELECT version FROM schema_version').pluck().all());
    expect(versions).toEqual(MIGRATIONS.map((_, i) => i + 1));
    const mode = again.read(() => again.statement('PRAGMA journal_mode').pluck().get());
    expect(mode).toBe('wal');
  });

  it('refuses writes once closing and converts reads after close to StorageUnavailable', async () => {
    const { db } = open();
    const before = db.write(() => putSecret(db, 'before'));
    const closed = db.close();
    await expect(db.write(() => 1)).rejects.toBeInstanceOf(StorageUnavailable);
    await closed;
    await expect(before).resolves.toBeUndefined();
    expect(() => secretNames(db)).toThrow(StorageUnavailable);
  });
});
