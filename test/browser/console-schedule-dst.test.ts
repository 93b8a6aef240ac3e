import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { signIn, useConsoleBrowser } from '../support/console-browser.js';
import { DEST, useFerry } from '../support/fixture.js';

/** The rows of the run table whose caption starts with `caption`, as [in zone, UTC] cell texts. */
async function runRows(page: Page, caption: RegExp): Promise<Array<[string, string]>> {
  const table = page.getByRole('table', { name: caption });
  await table.locator('tbody tr').first().waitFor();
  const rows = await table.locator('tbody tr').all();
  return Promise.all(rows.map(async (row) => [(await row.locator('td').nth(1).innerText()).trim(), (await row.locator('td').nth(2).innerText()).trim()] as [string, string]));
}

describe('the daylight-saving policy and bounds in the schedule form', () => {
  const f = useFerry();
  const browser = useConsoleBrowser();

  it('previews both passes of a repeated hour from a chosen start, creates the schedule and shows its policy and bounds', async () => {
    const c = await browser.openConsole(f.ferry.baseUrl);
    await signIn(c.page, f.apiKey);
    const page = c.page;
    await page.goto(`${f.ferry.baseUrl}/console/#/schedules/new`);
    await page.getByRole('heading', { name: 'New schedule' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Both passes');
    await page.getByLabel('URL').fill(`${DEST}/both`);
    await page.getByLabel('Cron expression', { exact: true }).fill('30 1 * * *');
    await page.getByLabel('Time zone', { exact: true }).fill('America/New_York');
    await page.getByLabel('When the clocks go back').selectOption('both');
    // New York repeats 01:00-01:59 on 7 November 2027: from the day before, the third and fourth runs are its passes.
    await page.getByLabel('Starts (UTC, optional)').fill('2027-11-06 00:00');
    await page.getByLabel('Ends (UTC, optional)').fill('2027-11-20');
    await page.getByRole('button', { name: 'Preview next runs' }).click();
    const rows = await runRows(page, /^Next runs of this timing/);
    expect(rows.slice(0, 3).map(([, utc]) => utc)).toEqual(['2027-11-06 05:30:00Z', '2027-11-07 05:30:00Z', '2027-11-07 06:30:00Z']);
    expect(rows[1]![0]).toContain('first pass of a repeated local time');
    expect(rows[2]![0]).toContain('second pass of a repeated local time');
    expect(rows[0]![0]).not.toContain('pass of a repeated');

    await page.getByRole('button', { name: 'Create schedule' }).click();
    await page.getByRole('heading', { name: 'Both passes' }).waitFor();
    const facts = page.getByRole('region', { name: 'Timing and status' });
    await expect
      .poll(() => facts.innerText())
      .toContain('30 1 * * * (America/New_York), DST gap shift, overlap both, from 2027-11-06T00:00:00.000Z, until 2027-11-20T00:00:00.000Z (exclusive)');
    // The saved schedule's own preview: the same runs, marked the same way.
    const saved = await runRows(page, /^Next runs of the saved timing/);
    expect(saved.slice(0, 3)).toEqual(rows.slice(0, 3));

    // A bound that is not a time is refused at its field before Ferry is asked.
    await page.getByRole('button', { name: 'Edit timing' }).click();
    const editor = page.getByRole('region', { name: 'Edit timing' });
    expect(await editor.getByLabel('When the clocks go back').inputValue()).toBe('both');
    await editor.getByLabel('Ends (UTC, optional)').fill('soon');
    await editor.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => editor.getByLabel('Ends (UTC, optional)').getAttribute('aria-invalid')).toBe('true');
    expect(c.problems()).toEqual([]);
    await c.close();
  });
});
