import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import type { BodyExcerpt } from '../../src/domain/request.js';
import { PROJECT_A, T0, aRequest, anAttempt, claimOf, settled } from './suite/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'ferry-old-excerpts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('response excerpts that earlier versions stored as bytes', () => {
  it('read back as the API shows them, beside excerpts stored as text', async () => {
    const path = join(dir, 'ferry.db');
    const json = Buffer.from(JSON.stringify({ data: Array.from({ length: 40 }, (_, i) => ({ id: `ord_${i}`, note: 'café' })) }));
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xc3, 0x28]);
    const asText: BodyExcerpt = { text: '{"error":"gone — for good"}', encoding: 'utf8' };
    const r = aRequest();
    const answered = (n: number) => anAttempt(r.id, n, { response: { headers: [['content-type', 'application/json']], body: asText, bodyTruncated: n === 1 } });

    const first = openEmbeddedBackend({ path });
    await first.projects.createProject({ id: PROJECT_A, name: 'p', monthlyAllowance: 10, scheduleAllowance: 1, retentionDays: 7, captureResponseBodies: true, createdAt: T0 });
    await first.requests.insertMany([r]);
    for (const n of [1, 2, 3, 4]) {
      await first.requests.recordAttempt(await claimOf(first.requests, r.id, T0 + n * 60_000), settled(answered(n), { status: 'queued', dueAt: T0 + (n + 1) * 60_000, attemptCount: n }));
    }
    await first.close();

    // Rows 1 to 3 as earlier versions wrote them: the bytes as read (text and not), and deflated; 4 stays text.
    const raw = new Database(path);
    const asBytes = raw.prepare('UPDATE attempt_bodies SET body = ?, deflated = ?, body_text = NULL, body_encoding = NULL WHERE request_id = ? AND attempt_number = ?');
    asBytes.run(json, 0, r.id, 1);
    asBytes.run(deflateRawSync(json, { level: 1 }), 1, r.id, 2);
    asBytes.run(binary, 0, r.id, 3);
    raw.close();

    const second = openEmbeddedBackend({ path });
    try {
      const bodies = (await second.requests.listAttempts(PROJECT_A, r.id)).map((a) => a.response?.body);
      expect(bodies).toEqual([
        { text: json.toString('utf8'), encoding: 'utf8' },
        { text: json.toString('utf8'), encoding: 'utf8' },
        { text: binary.toString('base64'), encoding: 'base64' },
        asText,
      ]);
    } finally {
      await second.close();
    }
  });
});
