import { describe, expect, it } from 'vitest';
import { storedBytes } from '../support/deployment.js';
import { Api } from '../support/api-client.js';
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

  it('never stores an API key in plain text', async () => {
    const files = await storedBytes(f.ferry.dataDir);
    expect(files.length).toBeGreaterThan(0);
    // The secret is everything after the key ID; it may itself contain underscores.
    const secret = f.apiKey.split('_').slice(2).join('_');
    for (const content of files) expect(content.includes(Buffer.from(secret))).toBe(false);
  });
});
