import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { PROJECT_B, T0, aRequest, useBackend } from './suite/harness.js';

/**
 * `RequestStore.dueUrls` of the embedded backend: where the work `claimDue` could take by a given time goes, soonest
 * first, so delivery can open connections ahead of it. Reads only: nothing is claimed.
 */
const dir = mkdtempSync(join(tmpdir(), 'ferry-due-urls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

describe('embedded RequestStore: destinations of work due soon', () => {
  const backend = useBackend(async () => openEmbeddedBackend({ path: join(dir, `case-${++files}`, 'ferry.db') }));
  const store = () => backend().requests;
  const now = T0 + 60_000;

  it('lists the URLs of claimable requests due by the given time, soonest first, up to the limit, claiming nothing', async () => {
    const url = (name: string) => `https://${name}.example/hook`;
    await store().insertMany([
      aRequest({ status: 'scheduled', scheduledAt: now + 900, dueAt: now + 900, url: url('c') }),
      aRequest({ status: 'queued', dueAt: now + 100, url: url('a') }),
      aRequest({ status: 'scheduled', scheduledAt: now + 500, dueAt: now + 500, url: url('b'), projectId: PROJECT_B }),
      // A lease that runs out by then: claimable again.
      aRequest({ status: 'delivering', dueAt: now + 700, url: url('lease') }),
      aRequest({ status: 'scheduled', scheduledAt: now + 2_000, dueAt: now + 2_000, url: url('later') }),
      aRequest({ status: 'succeeded', dueAt: null, url: url('done') }),
      aRequest({ status: 'cancelled', dueAt: now, url: url('cancelled') }),
    ]);

    expect(await store().dueUrls!(now + 1_000, 10)).toEqual([url('a'), url('b'), url('lease'), url('c')]);
    expect(await store().dueUrls!(now + 1_000, 2)).toEqual([url('a'), url('b')]);
    expect(await store().dueUrls!(now + 1_000, 0)).toEqual([]);
    expect(await store().claimDue(now + 1_000, 10, now + 60_000)).toHaveLength(4);
  });
});
