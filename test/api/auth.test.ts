import { describe, expect, it } from 'vitest';
import { storedBytes } from '../support/deployment.js';
import { Api, eventually } from '../support/api-client.js';
import { ferryCli } from '../support/ferry-process.js';
import { DEST, useFerry } from '../support/fixture.js';

describe('authentication and project scoping', () => {
  const f = useFerry();

  it('answers 401 in the envelope without a key, with a malformed key and with an unknown key', async () => {
    for (const auth of [null, 'Bearer', 'Basic abc', 'Bearer fry_nope', 'Bearer fry_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const res = await f.api.call('GET', '/requests', { auth });
      expect(res.status, String(auth)).toBe(401);
      expect(res.body).toMatchObject({ success: false, data: null, meta: null, error: { code: 'UNAUTHENTICATED' } });
      expect(res.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('does not accept work without a valid key, and stores nothing', async () => {
    const res = await f.api.call('POST', `/send?url=${encodeURIComponent(DEST)}`, { body: 'x', auth: 'Bearer wrong' });
    expect(res.status).toBe(401);
    const list = await f.api.call<{ items: unknown[] }>('GET', '/requests');
    expect(list.body.data.items).toHaveLength(0);
  });

  it('reports another project\'s request as 404 on every read and write', async () => {
    const mine = await f.api.send({ url: DEST });
    expect(mine.status).toBe(202);
    const id = (mine.body.data as { id: string }).id;
    const other = await f.newProject();
    for (const [method, path] of [
      ['GET', `/requests/${id}`],
      ['GET', `/requests/${id}/attempts`],
      ['POST', `/requests/${id}/cancel`],
      ['POST', `/requests/${id}/replay`],
    ] as const) {
      const res = await other.api.call(method, path);
      expect(res.status, path).toBe(404);
      expect(res.body.error?.code).toBe('NOT_FOUND');
    }
    const list = await other.api.call<{ items: unknown[] }>('GET', '/requests');
    expect(list.body.data.items).toHaveLength(0);
  });

  it('stops accepting a revoked key, and a second key of the same project sees the same data', async () => {
    const project = await f.newProject();
    const second = (await ferryCli(f.ferry.dataDir, ['key', 'create', '--project', project.projectId])).api_key as string;
    expect(second).not.toBe(project.apiKey);
    const sent = await project.api.send({ url: DEST });
    const id = (sent.body.data as { id: string }).id;
    const viaSecond = await new Api(f.ferry.baseUrl, second).call('GET', `/requests/${id}`);
    expect(viaSecond.status).toBe(200);
    await ferryCli(f.ferry.dataDir, ['key', 'revoke', '--key', project.apiKey]);
    expect((await project.api.call('GET', '/requests')).status).toBe(401);
    expect((await new Api(f.ferry.baseUrl, second).call('GET', '/requests')).status).toBe(200);
  });

  it("shows a key's last use, written once when first used and not again for every call", async () => {
    const project = await f.newProject();
    type Listed = Array<{ key_id: string; last_used_at: string | null }>;
    const keys = async () => (await ferryCli(f.ferry.dataDir, ['key', 'list', '--project', project.projectId])) as unknown as Listed;
    expect((await keys()).map((k) => k.last_used_at)).toEqual([null]);

    const before = Date.now();
    expect((await project.api.call('GET', '/requests')).status).toBe(200);
    const firstUse = await eventually(async () => (await keys())[0]?.last_used_at ?? undefined, 20_000);
    expect(Date.parse(firstUse)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(firstUse)).toBeLessThanOrEqual(Date.now());
    // Within the minute, later calls (each authenticated against storage here) write nothing more.
    for (let i = 0; i < 3; i++) expect((await project.api.call('GET', '/requests')).status).toBe(200);
    expect((await keys())[0]?.last_used_at).toBe(firstUse);
  });

  it('applies a changed monthly allowance to the next call, lowered or raised', async () => {
    const project = await f.newProject();
    for (let i = 0; i < 2; i++) expect((await project.api.send({ url: DEST, delay: '1h' })).status).toBe(202);
    await ferryCli(f.ferry.dataDir, ['project', 'update', '--project', project.projectId, '--monthly-allowance', '2']);
    const refused = await project.api.send({ url: DEST, delay: '1h' });
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe('MONTHLY_ALLOWANCE_EXCEEDED');
    await ferryCli(f.ferry.dataDir, ['project', 'update', '--project', project.projectId, '--monthly-allowance', '3']);
    expect((await project.api.send({ url: DEST, delay: '1h' })).status).toBe(202);
    expect((await project.api.send({ url: DEST, delay: '1h' })).status).toBe(429);
  });

  it('never stores an API key in plain text', async () => {
    const files = await storedBytes(f.ferry.dataDir);
    expect(files.length).toBeGreaterThan(0);
    // The secret is everything after the key ID; it may itself contain underscores.
    const secret = f.apiKey.split('_').slice(2).join('_');
    for (const content of files) expect(content.includes(Buffer.from(secret))).toBe(false);
  });
});
