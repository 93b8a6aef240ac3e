import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { eventually, type Api } from '../support/api-client.js';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { NARROW, signIn, useConsoleBrowser } from '../support/console-browser.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { useFerry } from '../support/fixture.js';

const certificate = sharedSelfSignedCertificate();

async function goTo(page: Page, hash: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
}

describe('the failures view and bulk replay and cancel in the console', () => {
  // Requests must fail and replays be delivered: this file runs a server that delivers and runs bulk actions.
  const f = useFerry({
    env: { FERRY_ROLES: 'api,delivery', FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: certificate.certFile },
  });
  const browser = useConsoleBrowser();
  let dest: Destination;
  beforeAll(async () => {
    dest = await startDestination({ certificate });
  });
  afterAll(async () => {
    await dest?.close();
  });

  async function create(api: Api, input: Record<string, unknown>): Promise<string> {
    const res = await api.create(input);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return (res.body.data as { id: string }).id;
  }

  async function failedIds(api: Api, queue: string): Promise<string[]> {
    const res = await api.call<{ items: Array<{ id: string }> }>('GET', `/requests?status=failed&queue=${queue}&limit=100`);
    expect(res.status).toBe(200);
    return res.body.data.items.map((r) => r.id);
  }

  it('lists failures with their last answer, replays two selected, then all matching after a dry run, live', async () => {
    const p = await f.newProject();
    let down = true;
    dest.on('/ledger', (exchange) =>
      down ? replies.status(500, { 'Content-Type': 'application/json' }, '{"error":"ledger unavailable",\n "retry":false}')(exchange) : replies.status(200)(exchange),
    );
    const billing: string[] = [];
    for (let i = 0; i < 3; i++) billing.push(await create(p.api, { url: `${dest.url}/ledger`, queue: 'billing', body: { n: i }, retry: { max_attempts: 1 } }));
    const other = await create(p.api, { url: `${dest.url}/ledger`, queue: 'reports', retry: { max_attempts: 1 } });
    await eventually(async () => ((await failedIds(p.api, 'billing')).length === 3 && (await failedIds(p.api, 'reports')).length === 1 ? true : undefined), 30_000);

    const c = await browser.openConsole(f.ferry.baseUrl);
    const { page } = c;
    await signIn(page, p.apiKey);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Failures' }).click();
    const rows = page.locator('table.failures tbody tr');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(4);

    // Filtered by queue as the requests list is: the address keeps it.
    await page.getByLabel('Queue').fill('billing');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.evaluate('location.hash')).toBe('#/failures?queue=billing');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await page.getByRole('row').filter({ hasText: other }).count()).toBe(0);
    // Each row: the last answer's code, why Ferry stopped in words, the start of the body on one line.
    for (const id of billing) {
      const row = page.getByRole('row').filter({ hasText: id });
      await expect.poll(() => row.locator('td.excerpt').textContent(), { timeout: 15_000 }).toBe('{"error":"ledger unavailable", "retry":false}');
      expect(await row.locator('td.code').textContent()).toBe('HTTP 500');
      expect(await row.locator('td.reason').textContent()).toBe('this was the last attempt allowed');
    }

    // The destination recovers; two selected failures are replayed by ID.
    down = false;
    await page.getByRole('checkbox', { name: `Select ${billing[0]}` }).check();
    await page.getByRole('checkbox', { name: `Select ${billing[1]}` }).check();
    await c.screenshot('failures');
    const bulk = page.getByRole('region', { name: 'Bulk actions' });
    await bulk.getByRole('button', { name: 'Replay selected (2)' }).click();
    const confirmation = bulk.getByRole('alertdialog');
    expect(await confirmation.locator('strong').textContent()).toBe('2 requests will be replayed.');
    await confirmation.getByRole('button', { name: 'Replay 2 requests' }).click();
    const progress = bulk.getByRole('region', { name: /^Bulk action bulk_/ });
    await expect.poll(() => progress.getByRole('status').textContent(), { timeout: 30_000 }).toBe('Completed: 2 of 2 requests replayed');
    expect(await progress.locator('progress').evaluate((el) => {
      const bar = el as unknown as { value: number; max: number };
      return [bar.value, bar.max];
    })).toEqual([2, 2]);
    await dest.waitForRequests('/ledger', 3 + 1 + 2, 20_000);
    // The selection was used up; the originals stay failed, and their replays, delivered, are no failures.
    expect(await page.getByRole('checkbox', { checked: true }).count()).toBe(0);

    // All matching: the dry run's count is shown first, and equals the failures of the filter.
    const failedNow = await failedIds(p.api, 'billing');
    expect(failedNow.length).toBe(3);
    await bulk.getByRole('button', { name: 'Close' }).click();
    await bulk.getByRole('button', { name: 'Replay all matching' }).click();
    await expect.poll(() => confirmation.locator('strong').textContent()).toBe(`${failedNow.length} requests will be replayed.`);
    await c.screenshot('failures-replay-confirm');
    await confirmation.getByRole('button', { name: `Replay ${failedNow.length} requests` }).click();
    await expect.poll(() => progress.getByRole('status').textContent(), { timeout: 30_000 }).toBe('Completed: 3 of 3 requests replayed');
    await dest.waitForRequests('/ledger', 3 + 1 + 2 + 3, 20_000);

    // Both actions are listed, newest first, with what they did.
    const recent = page.getByRole('region', { name: 'Recent bulk actions' }).locator('tbody tr');
    await expect.poll(() => recent.count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => recent.first().textContent()).toContain('Completed: 3 of 3 requests replayed');
    expect(await recent.nth(1).textContent()).toContain('Completed: 2 of 2 requests replayed');
    await c.screenshot('failures-bulk-done');
    expect(c.problems()).toEqual([]);
    await c.close();

    // On a phone every row folds to the window's width: nothing of it lies past the edge.
    const narrow = await browser.openConsole(f.ferry.baseUrl, { viewport: NARROW, hash: '#/failures?queue=billing' });
    await signIn(narrow.page, p.apiKey);
    await goTo(narrow.page, '#/failures?queue=billing');
    await expect.poll(() => narrow.page.locator('table.failures tbody td.excerpt').first().textContent(), { timeout: 15_000 }).toContain('ledger unavailable');
    await narrow.screenshot('failures-narrow');
    expect(await narrow.page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
    await expect.poll(() => narrow.page.locator('.recent-bulk tbody tr').count()).toBe(2);
    const cellsOutside = await narrow.page.evaluate(`[...document.querySelectorAll('table.failures td, .recent-bulk td')]
      .map((td) => td.getBoundingClientRect())
      .filter((r) => r.left < 0 || r.right > window.innerWidth).length`);
    expect(cellsOutside).toBe(0);
    expect(narrow.problems()).toEqual([]);
    await narrow.close();
  });

  it('cancels all a filter of the requests list matches, after showing how many', async () => {
    const p = await f.newProject();
    const waiting: string[] = [];
    for (let i = 0; i < 3; i++) waiting.push(await create(p.api, { url: `${dest.url}/later`, queue: 'overfilled', delay: '1h' }));
    const kept = await create(p.api, { url: `${dest.url}/later`, queue: 'kept', delay: '1h' });

    const c = await browser.openConsole(f.ferry.baseUrl);
    const { page } = c;
    await signIn(page, p.apiKey);
    const bulk = page.getByRole('region', { name: 'Bulk actions' });
    await page.getByText('Replay or cancel all matching').click();
    // Without a filter there is nothing to act on "all" of: the API refuses an empty filter.
    expect(await bulk.getByRole('button', { name: 'Cancel all matching' }).isDisabled()).toBe(true);
    await goTo(page, '#/requests?queue=overfilled');
    await expect.poll(() => page.getByRole('row').filter({ hasText: waiting[0]! }).count(), { timeout: 15_000 }).toBe(1);
    await bulk.getByRole('button', { name: 'Cancel all matching' }).click();
    const confirmation = bulk.getByRole('alertdialog');
    await expect.poll(() => confirmation.locator('strong').textContent()).toBe('3 requests will be cancelled.');
    await confirmation.getByRole('button', { name: 'Cancel 3 requests' }).click();
    const progress = bulk.getByRole('region', { name: /^Bulk action bulk_/ });
    await expect.poll(() => progress.getByRole('status').textContent(), { timeout: 30_000 }).toBe('Completed: 3 of 3 requests cancelled');
    for (const id of waiting) await expect.poll(() => page.getByRole('row').filter({ hasText: id }).textContent(), { timeout: 15_000 }).toContain('cancelled');
    const other = await p.api.call<{ status: string }>('GET', `/requests/${kept}`);
    expect(other.body.data.status).toBe('scheduled');
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it('shows a refused filter as the API put it, at the bulk action too, and starts nothing', async () => {
    const p = await f.newProject();
    const c = await browser.openConsole(f.ferry.baseUrl);
    const { page } = c;
    await signIn(page, p.apiKey);
    // A hand-edited address: the code is no number, for the API to refuse rather than the console to drop.
    await goTo(page, '#/failures?response_status_code=5xx');
    const bulk = page.getByRole('region', { name: 'Bulk actions' });
    await bulk.getByRole('button', { name: 'Replay all matching' }).click();
    const refusal = bulk.getByRole('alert');
    await expect.poll(() => refusal.textContent(), { timeout: 15_000 }).toContain('Ferry refused the input (422');
    expect(await refusal.textContent()).toContain('response_status_code');
    expect(await bulk.getByRole('alertdialog').count()).toBe(0);
    const actions = await p.api.call<{ items: unknown[] }>('GET', '/bulk-actions');
    expect(actions.body.data.items).toEqual([]);
    // The browser reports each refused call as a console error; those are the answers asked for here.
    expect(c.problems().filter((problem) => !problem.includes('status of 422'))).toEqual([]);
    await c.close();
  });
});
