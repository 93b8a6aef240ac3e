import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EmbeddedDatabase, type EmbeddedDatabaseOptions } from '../../src/adapters/embedded/database.js';
import { PACK_BYTES } from '../../src/adapters/embedded/excerpt-packs.js';
import { MIGRATIONS, migrate } from '../../src/adapters/embedded/migrations.js';
import { EmbeddedRequestStore } from '../../src/adapters/embedded/requests.js';
import { EmbeddedScheduleStore } from '../../src/adapters/embedded/schedules.js';
import { StorageUnavailable } from '../../src/ports/errors.js';
import { VersionConflict } from '../../src/ports/requests.js';
import { PROJECT_A, T0, aRequest, aSchedule, anAttempt, settled } from './suite/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'ferry-embedded-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const opened: EmbeddedDatabase[] = [];
const others: Database.Database[] = [];
afterEach(async () => {
  for (const other of others.splice(0)) other.close();
  await Promise.all(opened.splice(0).map((db) => db.close()));
});

function open(options: Partial<EmbeddedDatabaseOptions> = {}): { db: EmbeddedDatabase; path: string } {
  const path = join(dir, `db-${++files}.sqlite`);
  const db = new EmbeddedDatabase({ path, ...options });
  opened.push(db);
  return { db, path };
}

/** A connection of its own: what it sees is committed, not merely applied. */
function otherConnection(path: string): Database.Database {
  const other = new Database(path);
  others.push(other);
  return other;
}

function putSecret(db: EmbeddedDatabase, name: string, value = new Uint8Array([1])): Promise<Uint8Array> {
  return db.write('getOrCreateSecret', { name, candidate: value });
}

function project(id: string) {
  return { id, name: id, monthlyAllowance: 1, scheduleAllowance: 1, retentionDays: 1, captureResponseBodies: true, createdAt: T0 };
}

function secretNames(db: EmbeddedDatabase): string[] {
  return db.read(() => db.statement('SELECT name FROM secrets ORDER BY name').pluck().all() as string[]);
}

// Never called: tsc checks op names, arguments and results of writes.
function _writesAreTyped(db: EmbeddedDatabase): Promise<boolean> {
  // @ts-expect-error the op needs the limit
  void db.write('reserveUsage', { projectId: PROJECT_A, period: '2030-01', count: 1 });
  // @ts-expect-error there is no such op
  void db.write('dropEverything', {});
  return db.write('reserveUsage', { projectId: PROJECT_A, period: '2030-01', count: 1, limit: 2 });
}

describe('EmbeddedDatabase group commit on the writer thread', () => {
  it('commits the writes queued in one turn as one group and settles each only once it is committed', async () => {
    const { db, path } = open();
    const other = otherConnection(path);
    const committed = other.prepare('SELECT 1 FROM secrets WHERE name = ?').pluck();
    const groupsBefore = db.groupCount;
    const seen = await Promise.all(Array.from({ length: 20 }, (_, i) => putSecret(db, `s${i}`).then(() => committed.get(`s${i}`))));
    expect(seen).toEqual(Array.from({ length: 20 }, () => 1));
    expect(db.groupCount - groupsBefore).toBe(1);
  });

  it('commits at most maxGroupSize writes together', async () => {
    const { db } = open({ maxGroupSize: 4 });
    const groupsBefore = db.groupCount;
    await Promise.all(Array.from({ length: 10 }, (_, i) => putSecret(db, `s${i}`)));
    expect(db.groupCount - groupsBefore).toBe(3);
    expect(secretNames(db)).toHaveLength(10);
  });

  it('shows a resolved write to the very next read on the reading connection', async () => {
    const { db } = open();
    const store = new EmbeddedRequestStore(db);
    await Promise.all(
      Array.from({ length: 200 }, async () => {
        const r = aRequest();
        await store.insertMany([r]);
        expect((await store.get(PROJECT_A, r.id))?.id).toBe(r.id);
        expect(await store.requestCancel(PROJECT_A, r.id, T0 + 1)).toBe(true);
        expect(await store.get(PROJECT_A, r.id)).toMatchObject({ status: 'cancelled', cancelledAt: T0 + 1, version: 2 });
      }),
    );
  });

  it('undoes and rejects only the write that failed, with the port error it failed with', async () => {
    const { db } = open();
    const store = new EmbeddedRequestStore(db);
    const r = aRequest({ status: 'delivering' });
    await store.insertMany([r]);
    const [claim] = await store.claimDue(T0, 1, T0 + 60_000);
    await store.recordAttempt(claim!, settled(anAttempt(r.id, 1), { attemptCount: 1 }));

    const groupsBefore = db.groupCount;
    const results = await Promise.allSettled([
      db.write('createProject', project('prj_a')),
      // The change applies, then the attempt collides with the stored one: the change must be undone too.
      db.write('recordAttempt', { projectId: PROJECT_A, id: r.id, expectedVersion: 3, attempt: anAttempt(r.id, 1), change: { set: { attemptCount: 9 } }, callback: null, usagePeriod: null }),
      db.write('changeRequest', { projectId: PROJECT_A, id: r.id, expectedVersion: 1, change: { set: { attemptCount: 5 } } }),
      db.write('createProject', project('prj_a')),
      db.write('createProject', project('prj_c')),
    ]);
    expect(db.groupCount - groupsBefore).toBe(1);
    expect(results.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'fulfilled']);
    const reasons = results.map((x) => (x.status === 'rejected' ? (x.reason as Error) : null));
    expect(reasons[1]).toBeInstanceOf(StorageUnavailable);
    expect(reasons[1]?.message).toMatch(/SQLITE_CONSTRAINT/);
    expect(reasons[2]).toBeInstanceOf(VersionConflict);
    expect(reasons[3]).toBeInstanceOf(StorageUnavailable);
    expect(await store.get(PROJECT_A, r.id)).toMatchObject({ attemptCount: 1, version: 3 });
    expect(await store.listAttempts(PROJECT_A, r.id)).toHaveLength(1);
    expect(db.read(() => db.statement('SELECT id FROM projects ORDER BY id').pluck().all())).toEqual(['prj_a', 'prj_c']);
  });

  it('keeps the excerpts of one group in packs and reads each back, a write that failed in the group included', async () => {
    const { db, path } = open();
    const store = new EmbeddedRequestStore(db);
    const requests = Array.from({ length: 24 }, () => aRequest({ status: 'delivering' }));
    await store.insertMany(requests);
    const claims = await store.claimDue(T0, requests.length, T0 + 60_000);
    expect(claims).toHaveLength(requests.length);
    // 2 KiB of random bytes each (more than one pack's worth in all), an empty excerpt and one without a response.
    const bodyOf = (i: number): Uint8Array | null => (i === 0 ? null : i === 1 ? new Uint8Array(0) : new Uint8Array(randomBytes(2048)));
    const attempts = claims.map((c, i) => {
      const body = bodyOf(i);
      return anAttempt(c.request.id, 1, { response: body === null ? null : { headers: [['content-type', 'application/octet-stream']], body, bodyTruncated: i % 2 === 0 } });
    });
    const first = claims[2]!;
    await store.recordAttempt(first, settled(attempts[2]!, { attemptCount: 1 }));

    const groupsBefore = db.groupCount;
    const results = await Promise.allSettled(
      claims.map((c, i) =>
        i === 2
          ? // Collides with the attempt stored above, after the excerpt was placed: the group runs again write by write.
            db.write('recordAttempt', { projectId: PROJECT_A, id: c.request.id, expectedVersion: c.request.version + 1, attempt: anAttempt(c.request.id, 1, { response: { headers: [], body: new Uint8Array(randomBytes(2048)), bodyTruncated: true } }), change: { set: { attemptCount: 2 } }, callback: null, usagePeriod: null })
          : store.recordAttempt(c, settled(attempts[i]!, { attemptCount: 1 })),
      ),
    );
    expect(db.groupCount - groupsBefore).toBe(1);
    expect(results.filter((x) => x.status === 'rejected')).toHaveLength(1);

    for (const [i, c] of claims.entries()) {
      const [stored] = await store.listAttempts(PROJECT_A, c.request.id);
      const expected = attempts[i]!.response;
      const excerpt = (response: typeof expected | undefined) => (response == null ? null : { body: Buffer.from(response.body!), truncated: response.bodyTruncated });
      expect(excerpt(stored?.response)).toEqual(excerpt(expected));
    }
    const packs = otherConnection(path).prepare('SELECT length(bytes) AS bytes FROM attempt_body_packs ORDER BY id').pluck().all() as number[];
    expect(packs.length).toBeGreaterThan(1);
    expect(Math.max(...packs)).toBeLessThanOrEqual(PACK_BYTES);
  });

  it('reads an excerpt stored in a row of its own, as earlier versions wrote them', async () => {
    const { db, path } = open();
    const store = new EmbeddedRequestStore(db);
    const r = aRequest({ status: 'delivering' });
    await store.insertMany([r]);
    const [claim] = await store.claimDue(T0, 1, T0 + 60_000);
    await store.recordAttempt(claim!, settled(anAttempt(r.id, 1, { response: { headers: [], body: null, bodyTruncated: false } }), { attemptCount: 1 }));
    const old = new Uint8Array(randomBytes(700));
    otherConnection(path).prepare('INSERT INTO attempt_bodies (request_id, attempt_number, body) VALUES (?, 1, ?)').run(r.id, old);
    const [stored] = await store.listAttempts(PROJECT_A, r.id);
    expect(Buffer.from(stored!.response!.body!)).toEqual(Buffer.from(old));
  });

  it('fails fast with StorageUnavailable once too many writes are waiting', async () => {
    const { db } = open({ maxPendingWrites: 3 });
    const accepted = [1, 2, 3].map((i) => putSecret(db, `s${i}`));
    await expect(putSecret(db, 's4')).rejects.toBeInstanceOf(StorageUnavailable);
    await expect(Promise.all(accepted)).resolves.toHaveLength(3);
    await expect(putSecret(db, 's5')).resolves.toBeInstanceOf(Uint8Array);
  });

  it('rejects the whole group with StorageUnavailable when another process holds the write lock', async () => {
    const { db, path } = open({ busyTimeoutMs: 50 });
    const other = otherConnection(path);
    other.exec('BEGIN IMMEDIATE');
    const results = await Promise.allSettled([putSecret(db, 'x'), db.write('createProject', project('prj_x'))]);
    for (const r of results) expect(r.status === 'rejected' && r.reason instanceof StorageUnavailable).toBe(true);
    other.exec('ROLLBACK');
    await expect(putSecret(db, 'y')).resolves.toBeInstanceOf(Uint8Array);
    expect(secretNames(db)).toEqual(['y']);
  });

  it('reports a full disk as StorageUnavailable for the write that hit it', async () => {
    // A cap below the current size holds the file at its current size.
    const { db } = open({ maxPageCount: 1 });
    await expect(putSecret(db, 'big', new Uint8Array(1024 * 1024))).rejects.toBeInstanceOf(StorageUnavailable);
    expect(secretNames(db)).toEqual([]);
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

  it("gives requests attempted before the last status code's migration their last attempt's code", async () => {
    const path = join(dir, `before-codes-${files++}.db`);
    const old = new Database(path);
    const version = MIGRATIONS.findIndex((m) => m.includes('ADD COLUMN last_status_code'));
    migrate(old, MIGRATIONS.slice(0, version));
    const insertRequest = old.prepare(`INSERT INTO requests (id, project_id, url, url_lower, method, headers, max_attempts, timeout_seconds,
      queue, metadata, source, status, attempt_count, created_at, updated_at, version) VALUES (?, ?, 'https://e.com/', 'https://e.com/', 'POST',
      '[]', 3, 30, 'default', '{}', 'api', ?, ?, ?, ?, 1)`);
    const insertAttempt = old.prepare(`INSERT INTO attempts (request_id, attempt_number, project_id, status, response_status_code, duration_ms,
      started_at, completed_at) VALUES (?, ?, ?, 'failed', ?, 5, ?, ?)`);
    // Answered 500 then 200; answered 503 then nothing; never attempted.
    const attempts: Record<string, Array<number | null>> = { req_a: [500, 200], req_b: [503, null], req_c: [] };
    for (const [id, codes] of Object.entries(attempts)) {
      insertRequest.run(id, PROJECT_A, codes.length === 0 ? 'queued' : 'failed', codes.length, T0, T0);
      for (const [i, code] of codes.entries()) insertAttempt.run(id, i + 1, PROJECT_A, code, T0 + i, T0 + i + 5);
    }
    migrate(old);
    expect(old.prepare('SELECT id, last_status_code FROM requests ORDER BY id').all()).toEqual([
      { id: 'req_a', last_status_code: 200 },
      { id: 'req_b', last_status_code: null },
      { id: 'req_c', last_status_code: null },
    ]);
    old.close();
  });

  it('reads a timing stored before the DST policy and bounds with their defaults', async () => {
    const { db, path } = open();
    const schedules = new EmbeddedScheduleStore(db);
    const cron = aSchedule({ timing: { type: 'cron', expression: '30 2 * * *', timezone: 'America/New_York', dst: { gap: 'skip', overlap: 'both' }, startsAt: T0, endsAt: T0 + 1 } });
    const interval = aSchedule({ timing: { type: 'interval', everySeconds: 60, startsAt: null, firstRunAt: T0, endsAt: T0 + 60_000 } });
    for (const s of [cron, interval]) await schedules.insert(s);
    expect((await schedules.get(PROJECT_A, cron.id))?.timing).toEqual(cron.timing);
    const other = otherConnection(path);
    const rewrite = other.prepare('UPDATE schedules SET timing = ? WHERE id = ?');
    rewrite.run('{"type":"cron","expression":"30 2 * * *","timezone":"America/New_York"}', cron.id);
    rewrite.run(`{"type":"interval","everySeconds":60,"startsAt":null,"firstRunAt":${T0}}`, interval.id);
    expect((await schedules.get(PROJECT_A, cron.id))?.timing).toEqual({
      type: 'cron',
      expression: '30 2 * * *',
      timezone: 'America/New_York',
      dst: { gap: 'shift', overlap: 'first' },
      startsAt: null,
      endsAt: null,
    });
    expect((await schedules.get(PROJECT_A, interval.id))?.timing).toEqual({ type: 'interval', everySeconds: 60, startsAt: null, firstRunAt: T0, endsAt: null });
  });

  it('refuses writes once closing and converts reads after close to StorageUnavailable', async () => {
    const { db } = open();
    const before = putSecret(db, 'before');
    const closed = db.close();
    await expect(putSecret(db, 'after')).rejects.toBeInstanceOf(StorageUnavailable);
    await closed;
    await expect(before).resolves.toBeInstanceOf(Uint8Array);
    expect(() => secretNames(db)).toThrow(StorageUnavailable);
  });

  it('fails every pending and later write with StorageUnavailable when the writer thread dies', async () => {
    const { db } = open();
    await putSecret(db, 'first');
    const queued = Array.from({ length: 5 }, (_, i) => putSecret(db, `queued${i}`));
    // A message the writer cannot take kills it before it reaches the writes handed over after it.
    const worker = (db as unknown as { worker: Worker }).worker;
    const stopped = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage(42);
    for (const result of await Promise.allSettled(queued)) {
      expect(result.status === 'rejected' && result.reason instanceof StorageUnavailable).toBe(true);
    }
    await stopped;
    await expect(putSecret(db, 'later')).rejects.toBeInstanceOf(StorageUnavailable);
    expect(secretNames(db)).toEqual(['first']);
    await db.close();
  });
});
