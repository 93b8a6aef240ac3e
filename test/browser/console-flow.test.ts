import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Budgets } from '../support/budget-client.js';
import { NARROW, signIn, useConsoleBrowser, type ConsolePage } from '../support/console-browser.js';
import { DEST, useFerry } from '../support/fixture.js';

/** The browser logs every 4xx answer to fetch as a console error; an answer a test asked for is no problem. */
function unexpected(c: ConsolePage, ...statuses: number[]): string[] {
  return c.problems().filter((p) => !statuses.some((s) => p.includes(`status of ${s}`)));
}

async function goTo(page: Page, hash: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
}

describe('the Queues and Flow keys pages of the console', () => {
  // The shared server (API only): these pages read and change configuration, and no delivery is needed for it.
  const f = useFerry();
  const browser = useConsoleBrowser();
  const sections = (page: Page) => page.getByRole('navigation', { name: 'Sections' });

  async function opened(hash?: string): Promise<ConsolePage> {
    const c = await browser.openConsole(f.ferry.baseUrl);
    await signIn(c.page, f.apiKey);
    if (hash !== undefined) await goTo(c.page, hash);
    return c;
  }

  it('shows a flow key configured through the API with its limits and live state, and pauses and resumes it', async () => {
    const keys = new Budgets(f.api, 'flow-keys');
    await keys.ok(keys.put('vendor:acme', { rate: { limit: 10, period: '1s' }, concurrency: 5 }));
    const c = await opened();
    const { page } = c;
    await sections(page).getByRole('link', { name: 'Flow keys' }).click();
    const row = page.getByRole('table', { name: 'Flow keys' }).getByRole('row').filter({ hasText: 'vendor:acme' });
    await expect.poll(() => row.innerText()).toContain('10 per 1s, burst 10');
    expect(await row.innerText()).toContain('5 at once');
    await c.screenshot('flow-keys-list');

    await row.getByRole('link', { name: 'vendor:acme' }).click();
    await page.getByRole('heading', { name: 'Flow key vendor:acme' }).waitFor();
    expect(page.url()).toMatch(/#\/flow-keys\/vendor:acme$/);
    const limits = page.getByRole('region', { name: 'Limits' });
    expect(await limits.innerText()).toMatch(/Rate\s+10 per 1s, burst 10/);
    expect(await limits.innerText()).toMatch(/Concurrency\s+5 at once/);
    expect(await limits.innerText()).toMatch(/Adaptive\s+yes/);
    const now = page.getByRole('region', { name: 'Now' });
    const state = await now.innerText();
    expect(state).toMatch(/Paused\s+no/);
    expect(state).toMatch(/In flight\s+0 of 5/);
    expect(state).toMatch(/Started this period\s+0 of 10 per 1s/);
    expect(state).toMatch(/Waiting\s+0 requests held back/);
    expect(state).toMatch(/Admitted rate\s+10 per 1s \(the limit\)/);
    expect(await page.locator('.badge.slowed').count()).toBe(0);

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('status').filter({ hasText: 'Paused: no new attempt starts under this flow key' }).waitFor();
    await expect.poll(() => now.innerText()).toMatch(/Paused\s+yes/);
    expect(await page.locator('.budget-head .badge').first().innerText()).toBe('paused');
    expect((await keys.ok(keys.get('vendor:acme'))).paused).toBe(true);
    await c.screenshot('flow-key-paused');

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('status').filter({ hasText: 'Resumed' }).waitFor();
    await expect.poll(() => now.innerText()).toMatch(/Paused\s+no/);
    expect((await keys.ok(keys.get('vendor:acme'))).paused).toBe(false);
    // The limits were left as they were.
    expect(await limits.innerText()).toMatch(/Rate\s+10 per 1s, burst 10/);

    // Readable on a phone: the page never scrolls sideways.
    const narrow = await browser.openConsole(f.ferry.baseUrl, { viewport: NARROW });
    await signIn(narrow.page, f.apiKey);
    for (const hash of ['#/flow-keys', '#/flow-keys/vendor:acme']) {
      await goTo(narrow.page, hash);
      await narrow.page.getByText('vendor:acme').first().waitFor();
      expect(await narrow.page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), hash).toBe(true);
    }
    expect(narrow.problems()).toEqual([]);
    await narrow.close();
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it("refuses a bad limit at its field with the API's own message, storing nothing, then saves the whole form", async () => {
    const keys = new Budgets(f.api, 'flow-keys');
    await keys.ok(keys.put('edit-me', { concurrency: 3 }));
    const c = await opened('#/flow-keys/edit-me');
    const { page } = c;
    await page.getByRole('heading', { name: 'Flow key edit-me' }).waitFor();
    await page.getByRole('button', { name: 'Edit limits' }).click();
    const editor = page.getByRole('region', { name: 'Edit limits' });
    // Filled with the limits in force.
    expect(await editor.getByLabel('Concurrency').inputValue()).toBe('3');
    expect(await editor.getByLabel('Attempts per period').inputValue()).toBe('');

    await editor.getByLabel('Attempts per period').fill('10');
    const period = editor.getByLabel('Period', { exact: true });
    await period.fill('2h');
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => editor.locator('.field-problem').textContent()).toContain('period must be');
    expect(await period.getAttribute('aria-invalid')).toBe('true');
    expect(await editor.getByRole('alert').innerText()).toContain('Ferry refused the input (422 INVALID_BUDGET)');
    await c.screenshot('flow-key-limits-refused');
    const untouched = await keys.ok(keys.get('edit-me'));
    expect([untouched.rate, untouched.concurrency]).toEqual([null, 3]);

    // Another field, another refusal, shown at that field only.
    await period.fill('1s');
    const concurrency = editor.getByLabel('Concurrency');
    await concurrency.fill('10001');
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => concurrency.getAttribute('aria-invalid')).toBe('true');
    expect(await period.getAttribute('aria-invalid')).toBeNull();
    expect(await editor.locator('.field-problem').textContent()).toContain('concurrency must be a whole number from 1 to 10,000');

    // Text that is no number at all never reaches the API.
    await concurrency.fill('lots');
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => editor.locator('.field-problem').textContent()).toBe('The concurrency must be a number, or empty for no such limit.');

    // Emptied, the concurrency limit goes: PUT replaces the whole configuration.
    await concurrency.fill('');
    await editor.getByRole('checkbox', { name: /Adaptive:/ }).uncheck();
    await editor.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Limits saved' }).waitFor();
    const limits = page.getByRole('region', { name: 'Limits' });
    await expect.poll(() => limits.innerText()).toMatch(/Rate\s+10 per 1s, burst 10/);
    expect(await limits.innerText()).toMatch(/Concurrency\s+no concurrency limit/);
    expect(await limits.innerText()).toMatch(/Adaptive\s+no/);
    const saved = await keys.ok(keys.get('edit-me'));
    expect([saved.rate, saved.concurrency, saved.adaptive]).toEqual([{ limit: 10, period: '1s', burst: 10 }, null, false]);
    expect(unexpected(c, 422)).toEqual([]);
    await c.close();
  });

  it('opens any key by name, one never configured included, and shows the refusal of a name that is not one', async () => {
    const keys = new Budgets(f.api, 'flow-keys');
    const c = await opened('#/flow-keys');
    const { page } = c;
    const open = page.getByRole('form', { name: 'Open a flow key' });
    await open.getByLabel('Open a flow key by name').fill('customer:never-set');
    await open.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Flow key customer:never-set' }).waitFor();
    const limits = page.getByRole('region', { name: 'Limits' });
    await expect.poll(() => limits.innerText()).toMatch(/Rate\s+no rate limit/);
    expect(await limits.innerText()).toMatch(/Changed\s+never configured/);
    expect(await page.getByRole('region', { name: 'Now' }).innerText()).toMatch(/Started this period\s+— \(no rate limit\)/);

    // A key never configured can be paused all the same, and is listed from then on.
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('status').filter({ hasText: 'Paused' }).waitFor();
    expect((await keys.ok(keys.get('customer:never-set'))).paused).toBe(true);
    await sections(page).getByRole('link', { name: 'Flow keys' }).click();
    const row = page.getByRole('table', { name: 'Flow keys' }).getByRole('row').filter({ hasText: 'customer:never-set' });
    await expect.poll(() => row.innerText()).toContain('paused');

    await goTo(page, '#/flow-keys/not a key');
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('422 INVALID_FLOW_KEY');
    expect(unexpected(c, 422)).toEqual([]);
    await c.close();
  });

  it("lists the queues the project has used, and a request's page links its queue and flow keys", async () => {
    const res = await f.api.create({ url: DEST, queue: 'billing', flow_keys: ['customer:42', 'vendor:acme'] });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = (res.body.data as { id: string }).id;
    const c = await opened(`#/requests/${id}`);
    const { page } = c;
    const definition = page.getByRole('region', { name: 'Definition' });
    await expect.poll(() => definition.innerText()).toMatch(/Flow keys\s+customer:42, vendor:acme/);
    expect(await definition.innerText()).toMatch(/Queue\s+billing/);
    await definition.getByRole('link', { name: 'customer:42' }).click();
    await page.getByRole('heading', { name: 'Flow key customer:42' }).waitFor();
    // The list shows them too, compactly under the URL.
    await sections(page).getByRole('link', { name: 'Requests' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: id }).innerText()).toContain('keys: customer:42, vendor:acme');
    await page.goBack();
    await page.getByRole('heading', { name: 'Flow key customer:42' }).waitFor();

    await sections(page).getByRole('link', { name: 'Queues' }).click();
    const row = page.getByRole('table', { name: 'Queues' }).getByRole('row').filter({ hasText: 'billing' });
    await expect.poll(() => row.innerText()).toContain('no rate limit');
    await row.getByRole('link', { name: 'billing' }).click();
    await page.getByRole('heading', { name: 'Queue billing' }).waitFor();
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it("sends flow keys from the send form, the API's refusal shown at the field", async () => {
    const c = await opened('#/send');
    const { page } = c;
    await page.getByLabel('URL', { exact: true }).fill(DEST);
    const field = page.getByLabel('Flow keys');
    await field.fill('customer:7, customer:7');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#s-flow-keys-error').textContent()).toContain('named more than once');

    await field.fill(' customer:7 , vendor:acme ');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const accepted = page.getByRole('status').filter({ hasText: 'Accepted' });
    await accepted.getByRole('link', { name: 'Follow its delivery' }).click();
    const definition = page.getByRole('region', { name: 'Definition' });
    await expect.poll(() => definition.innerText()).toMatch(/Flow keys\s+customer:7, vendor:acme/);
    expect(unexpected(c, 422)).toEqual([]);
    await c.close();
  });
});
