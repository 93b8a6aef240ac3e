import Database from 'better-sqlite3';
import { migrate } from '/work/wt-capture/src/adapters/embedded/migrations.ts';
import { INSERT_ATTEMPT, insertAttempt } from '/work/wt-capture/src/adapters/embedded/request-rows.ts';
import type { AttemptRecord, CapturedResponse } from '/work/wt-capture/src/domain/request.ts';
const N = 20_000;
function size(response: CapturedResponse | null, finalReason: AttemptRecord['finalReason']): number {
  const db = new Database(':memory:');
  migrate(db);
  const ins = db.prepare(INSERT_ATTEMPT);
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      insertAttempt(ins, 'prj_01hzzzzzzzzzzzzzzzzzzzzzzz', { requestId: `req_${String(i).padStart(26, '0')}`, attemptNumber: 1, status: 'succeeded', responseStatusCode: 200, errorMessage: null, durationMs: 12, startedAt: 1.7e12 + i, completedAt: 1.7e12 + i + 12, retry: null, finalReason, response });
    }
  })();
  const { page_count, page_size } = { page_count: db.pragma('page_count', { simple: true }) as number, page_size: db.pragma('page_size', { simple: true }) as number };
  return (page_count * page_size) / N;
}
const headers: Array<[string, string]> = [['content-type', 'application/json; charset=utf-8']];
const none = size(null, null);
const headersOnly = size({ headers, body: null, bodyTruncated: false }, null);
const empty = size({ headers, body: new Uint8Array(), bodyTruncated: false }, null);
const small = size({ headers, body: Buffer.from('{"ok":true,"id":"evt_123"}'), bodyTruncated: false }, null);
const full = size({ headers, body: Buffer.alloc(2048, 0x61), bodyTruncated: true }, 'attempts_exhausted');
console.log(JSON.stringify({ none, headersOnly, empty, small, full }));
