import { describe, expect, it } from 'vitest';
import { Ferry, FerryApiError, type Budget, type BudgetLimits } from '../../sdk/src/index.js';
import { DEST, useFerry } from '../support/fixture.js';

const f = useFerry();

async function client(): Promise<Ferry> {
  const p = await f.newProject();
  return new Ferry({ baseUrl: f.ferry.baseUrl, apiKey: p.apiKey });
}

/** The error a promise rejects with, failing the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<FerryApiError> {
  const outcome = await promise.then(() => undefined, (e: unknown) => e);
  expect(outcome).toBeInstanceOf(FerryApiError);
  return outcome as FerryApiError;
}

describe.each([['queues', 'billing.eu'], ['flowKeys', 'vendor:acme']] as const)('SDK: ferry.%s', (resource, name) => {
  it('gets, puts, pauses, resumes and lists, typed from the API', async () => {
    const ferry = await client();
    const budgets = ferry[resource];
    const never = await budgets.get(name);
    const read: Budget = never;
    expect(read).toMatchObject({ name, rate: null, concurrency: null, adaptive: true, paused: false, updated_at: null });
    expect(never.requestId).toEqual(expect.any(String));

    const limits: BudgetLimits = { rate: { limit: 10, period: '60s' }, concurrency: 5 };
    expect(await budgets.put(name, limits)).toMatchObject({ rate: { limit: 10, period: '1m', burst: 10 }, concurrency: 5 });
    expect(await budgets.pause(name)).toMatchObject({ paused: true, concurrency: 5 });
    expect(await budgets.resume(name)).toMatchObject({ paused: false });
    for (const other of ['b-1', 'b-2']) await budgets.pause(other);

    const page = await budgets.list({ limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.next_cursor).toEqual(expect.any(String));
    const all: string[] = [];
    for await (const b of budgets.list({ limit: 1 })) all.push(b.name);
    expect(all).toEqual(['b-1', 'b-2', name].sort());
  });

  it('rejects bad limits and names with the API error, naming the field', async () => {
    const ferry = await client();
    const budgets = ferry[resource];
    const bad = await rejection(budgets.put(name, { concurrency: 10_001 }));
    expect([bad.status, bad.code, bad.field]).toEqual([422, 'INVALID_BUDGET', 'concurrency']);
    const badName = await rejection(budgets.get('has space'));
    expect([badName.status, badName.code]).toEqual([422, resource === 'queues' ? 'INVALID_QUEUE' : 'INVALID_FLOW_KEY']);
  });
});

describe('SDK: flow keys on requests', () => {
  it('sends them as Flow-Keys, creates and batches with flow_keys, and reads them back', async () => {
    const ferry = await client();
    const sent = await ferry.requests.send(DEST, 'x', { flowKeys: ['a', 'b:c'] });
    expect((await ferry.requests.get(sent.id)).flow_keys).toEqual(['a', 'b:c']);
    const created = await ferry.requests.create({ url: DEST, flow_keys: ['d'] });
    const detail = await ferry.requests.get(created.id);
    expect(detail).toMatchObject({ flow_keys: ['d'], waiting_for: null });
    const [item] = await ferry.requests.batch([{ url: DEST, flow_keys: ['e'] }]);
    expect((await ferry.requests.get(item!.id)).flow_keys).toEqual(['e']);
    const bad = await rejection(ferry.requests.send(DEST, 'x', { flowKeys: ['a', 'a'] }));
    expect([bad.code, bad.field]).toEqual(['INVALID_FLOW_KEY', 'Flow-Keys']);
  });
});
