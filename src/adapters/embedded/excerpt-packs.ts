import type { Connection } from './connection.js';

/**
 * Where an attempt's body excerpt is kept: pack `pack`, `length` bytes from byte `offset`. A pack is one row of
 * `attempt_body_packs` holding the excerpts of one group commit side by side.
 *
 * Why packs: an excerpt in a row of its own cost a B-tree entry in a table and in its key's index, and a 2 KiB
 * excerpt a whole 4 KiB page (two such rows do not fit in one), written to the WAL and again at the checkpoint.
 * Packed, a group's excerpts fill overflow pages end to end and the group adds one row
 * (test/bench/README.md#response-capture).
 */
export interface ExcerptPlace {
  readonly pack: number;
  readonly offset: number;
  readonly length: number;
}

/**
 * A pack stops growing at this size, so that reading one excerpt back (SQLite reads the whole value before
 * `substr` cuts it) never reads more than this.
 */
export const PACK_BYTES = 32 * 1024;

const INSERT_PACK = 'INSERT INTO attempt_body_packs (id, bytes) VALUES (?, ?)';

/**
 * The writer thread's packs of the group being written. Places are handed out while the group's writes run and the
 * packs are inserted once, after the last write and before COMMIT: a write undone by its savepoint then never
 * takes a pack away from the writes before it; its bytes stay in the pack, unreferenced.
 */
export class ExcerptPacks {
  /** The id the next pack gets; read from the table once, then counted here (this thread is the only writer). */
  private committedNextId: number | null = null;
  private nextId = 0;
  private sealed: Array<readonly [number, Uint8Array[]]> = [];
  private open: Uint8Array[] = [];
  private openBytes = 0;

  constructor(private readonly db: Connection) {}

  /** Starts a group transaction; what an earlier, rolled back group placed is forgotten. */
  startGroup(): void {
    this.committedNextId ??= ((this.db.statement('SELECT max(id) FROM attempt_body_packs').pluck().get() as number | null) ?? 0) + 1;
    this.nextId = this.committedNextId;
    this.sealed = [];
    this.open = [];
    this.openBytes = 0;
  }

  place(excerpt: Uint8Array): ExcerptPlace {
    if (this.openBytes > 0 && this.openBytes + excerpt.byteLength > PACK_BYTES) {
      this.sealed.push([this.nextId++, this.open]);
      this.open = [];
      this.openBytes = 0;
    }
    const place = { pack: this.nextId, offset: this.openBytes, length: excerpt.byteLength };
    this.open.push(excerpt);
    this.openBytes += excerpt.byteLength;
    return place;
  }

  /** Inserts the group's packs; runs inside the group transaction, before COMMIT. */
  finishGroup(): void {
    const insert = this.db.statement(INSERT_PACK);
    for (const [id, parts] of this.sealed) insert.run(id, Buffer.concat(parts));
    if (this.openBytes > 0 || this.open.length > 0) insert.run(this.nextId++, Buffer.concat(this.open));
    this.sealed = [];
    this.open = [];
    this.openBytes = 0;
  }

  /** The group's COMMIT succeeded: its packs' ids are taken. */
  committed(): void {
    this.committedNextId = this.nextId;
  }
}

const packsByConnection = new WeakMap<Connection, ExcerptPacks>();

/**
 * The packs of the writer's connection. Kept beside the connection rather than passed to every write op: only the
 * op that records an attempt places an excerpt, and the writer thread starts and finishes the groups.
 */
export function excerptPacks(db: Connection): ExcerptPacks {
  let packs = packsByConnection.get(db);
  if (packs === undefined) {
    packs = new ExcerptPacks(db);
    packsByConnection.set(db, packs);
  }
  return packs;
}
