import { describe, expect, it } from 'vitest';
import { eventually } from '../support/api-client.js';
import { PROJECT_A, PROJECT_B, aRequest, anAttempt } from './suite/harness.js';
import { scratchCassandraBackend } from './suite/scratch-cassandra.js';

const DAY = 86_400_000;

// Cassandra only: finished history is deleted by TTL when the project's retention would hide it.
describe('Cassandra request retention through TTL', () => {
  const open = scratchCassandraBackend('ttl', 4);

  it('deletes a request, its attempts and its list entry once retention has passed since its creation', async () => {
    const backend = open();
    const now = Date.now();
    const project = (id: string, retentionDays: number) => ({ id, name: id, monthlyAllowance: 10, scheduleAllowance: 1, retentionDays, createdAt: now });
    await backend.projects.createProject(project(PROJECT_A, 1));
    await backend.projects.createProject(project(PROJECT_B, 30));
    // Created a day ago less three seconds: hidden by the cutoff three seconds from now.
    const expiring = aRequest({ projectId: PROJECT_A, createdAt: now - DAY + 3_000, dueAt: now, body: new Uint8Array([1, 2]) });
    const kept = aRequest({ projectId: PROJECT_B, createdAt: now - DAY + 3_000, dueAt: now });
    const active = aRequest({ projectId: PROJECT_A, createdAt: now - DAY + 3_000, dueAt: now + DAY });
    await backend.requests.insertMany([expiring, kept, active]);
    for (const r of [expiring, kept]) {
      await backend.requests.recordAttempt(r.projectId, r.id, 1, anAttempt(r.id, 1, { status: 'succeeded' }), {
        status: 'succeeded',
        dueAt: null,
        attemptCount: 1,
      });
    }

    await eventually(async () => ((await backend.requests.get(PROJECT_A, expiring.id)) === null ? true : undefined), 20_000);
    expect(await backend.requests.listAttempts(PROJECT_A, expiring.id)).toEqual([]);
    const listed = await backend.requests.list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 10 });
    expect(listed.map((r) => r.id)).toEqual([active.id]);

    // Another project's longer retention, and a request that has not ended, keep theirs.
    expect((await backend.requests.get(PROJECT_B, kept.id))?.status).toBe('succeeded');
    expect(await backend.requests.listAttempts(PROJECT_B, kept.id)).toHaveLength(1);
    expect((await backend.requests.get(PROJECT_A, active.id))?.status).toBe('queued');
  }, 60_000);
});
