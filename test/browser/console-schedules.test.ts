import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Api } from '../support/api-client.js';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { NARROW, signIn, useConsoleBrowser } from '../support/console-browser.js';
import { startDestination, type Destination } from '../support/destination.js';
import { DEST, useFerry } from '../support/fixture.js';

interface Created {
  id: string;
  name: string;
}

/** Creates a schedule through the API (not the form), for pages that need one to show. */
async function createSchedule(api: Api, definition: Record<string, unknown>): Promise<Created> {
  const res = await api.call<Created>('POST', '/schedules', { json: definition, headers: { 'Idempotency-Key': crypto.randomUUID() } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** The UTC offset of an instant in a zone, as the console labels it ("GMT+1"). */
function offsetIn(at: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'shortOffset' }).formatToParts(new Date(at));
  return parts.find((p) => p.type === 'timeZoneName')!.value;
}

/** The rows of the run table whose caption starts with `caption`, as [in zone, UTC] cell texts. */
async function runRows(page: Page, caption: RegExp): Promise<Array<[string, string]>> {
  const table = page.getByRole('table', { name: caption });
  await table.locator('tbody tr').first().waitFor();
  const rows = await table.locator('tbody tr').all();
  return Promise.all(rows.map(async (row) => [(await row.locator('td').nth(1).innerText()).trim(), (await row.locator('td').nth(2).innerText()).trim()] as [string, string]));
}

/**
 * Checks a table of monthly 09:00 Berlin runs: each at 09:00 local, at the UTC time its offset gives, and every
 * change of offset marked on the first run after it (and only there), counting from the offset now.
 */
function expectBerlinMonthlyRuns(rows: Array<[string, string]>): void {
  expect(rows).toHaveLength(10);
  let previousOffset = offsetIn(Date.now(), 'Europe/Berlin');
  let changes = 0;
  for (const [inZone, utc] of rows) {
    expect(inZone).toMatch(/ 09:00 GMT\+[12]/);
    const at = Date.parse(utc.replace(' ', 'T'));
    const offset = offsetIn(at, 'Europe/Berlin');
    expect(utc).toMatch(offset === 'GMT+1' ? / 08:00:00Z$/ : / 07:00:00Z$/);
    if (previousOffset !== offset) {
      expect(inZone).toContain(`clocks change: ${previousOffset} → ${offset}`);
      changes += 1;
    } else {
      expect(inZone).not.toContain('clocks change');
    }
    previousOffset = offset;
  }
  // Ten consecutive months always span at least one of Berlin's two yearly changes.
  expect(changes).toBeGreaterThanOrEqual(1);
}

// The two groups have servers, projects and browsers of their own: the second, which waits for an occurrence, runs
// beside the first, whose tests run one at a time, in order, on one project. Side by side, a test's `expect.poll`
// must be its own context's (the module's `expect` knows only one current test).
describe.concurrent('the schedules pages', () => {
  const f = useFerry();
  const browser = useConsoleBrowser();

  it.sequential('creates a schedule through the form, its next runs previewed first with the clocks change marked, then shows it', async ({ expect }) => {
    const c = await browser.openConsole(f.ferry.baseUrl);
    await signIn(c.page, f.apiKey);
    const page = c.page;
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Schedules' }).click();
    await page.getByRole('heading', { name: 'No schedules yet' }).waitFor();
    await page.getByRole('link', { name: 'New schedule' }).click();
    await page.getByRole('heading', { name: 'New schedule' }).waitFor();

    await page.getByLabel('Name', { exact: true }).fill('Monthly report');
    await page.getByLabel('URL').fill(`${DEST}/report`);
    await page.getByLabel(/^Headers/).fill('X-Tenant: acme');
    await page.getByLabel(/^Body/).fill('{"report": "monthly"}');
    await page.getByLabel(/^Flow keys/).fill('vendor:acme, customer:42');
    // A schedule's retry counts retries after each run's first attempt, 0 unless given.
    expect(await page.locator('#new-retry-hint').textContent()).toBe("0 to 19 retries after each run's first attempt; 0: one attempt per run.");
    await page.getByLabel('Cron expression', { exact: true }).fill('0 9 1 * *');
    await page.getByLabel('Time zone', { exact: true }).fill('Europe/Berlin');
    const create = page.getByRole('button', { name: 'Create schedule' });
    expect(await create.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Preview next runs' }).click();
    expectBerlinMonthlyRuns(await runRows(page, /^Next runs of this timing/));
    await page.getByText(/^The clocks change (once|\d times) in Europe\/Berlin over these runs/).waitFor();
    expect(await create.isDisabled()).toBe(false);

    await create.click();
    await page.getByRole('heading', { name: 'Monthly report' }).waitFor();
    expect(page.url()).toMatch(/#\/schedules\/sch_/);
    const facts = page.getByRole('region', { name: 'Timing and status' });
    await expect.poll(() => facts.innerText()).toContain('At 09:00 on the 1st of every month, Europe/Berlin');
    expect(await facts.innerText()).toContain('0 9 1 * * (Europe/Berlin)');
    expectBerlinMonthlyRuns(await runRows(page, /^Next runs of the saved timing/));
    const definition = page.getByRole('region', { name: 'Request sent at each run' });
    const definitionText = await definition.innerText();
    expect(definitionText).toContain(`${DEST}/report`);
    expect(definitionText).toContain('X-Tenant');
    expect(definitionText).toContain('[REDACTED]');
    expect(definitionText).toContain('"report": "monthly"');
    expect(definitionText).toMatch(/Flow keys\s+vendor:acme\s*,?\s*customer:42/);
    await page.getByRole('heading', { name: 'Next 10 runs' }).scrollIntoViewIfNeeded();
    await c.screenshot('schedule-preview-dst');

    // Readable on a phone: the page never scrolls sideways; wide tables scroll inside their frame.
    const narrow = await browser.openConsole(f.ferry.baseUrl, { viewport: NARROW });
    await signIn(narrow.page, f.apiKey);
    await narrow.page.goto(page.url());
    await narrow.page.getByRole('table', { name: /^Next runs of the saved timing/ }).waitFor();
    expect(await narrow.page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    expect(narrow.problems()).toEqual([]);
    await narrow.close();
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it.sequential('pauses and resumes, edits the timing after previewing it, and deletes only after a second, explicit step', async ({ expect }) => {
    const s = await createSchedule(f.api, { name: 'Nightly sync', timing: { type: 'cron', expression: '30 2 * * *', timezone: 'America/New_York' }, request: { url: `${DEST}/sync` } });
    const c = await browser.openConsole(f.ferry.baseUrl);
    await signIn(c.page, f.apiKey);
    const page = c.page;
    await page.goto(`${f.ferry.baseUrl}/console/#/schedules/${s.id}`);
    await page.getByRole('heading', { name: 'Nightly sync' }).waitFor();
    const facts = page.getByRole('region', { name: 'Timing and status' });
    await expect.poll(() => facts.innerText()).toContain('At 02:30 every day, America/New_York');

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('status').filter({ hasText: 'Paused' }).waitFor();
    await expect.poll(() => facts.innerText()).toContain('none while paused');
    expect(await page.locator('.schedule-head .badge').innerText()).toBe('paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('status').filter({ hasText: 'Resumed' }).waitFor();
    await expect.poll(() => page.locator('.schedule-head .badge').innerText()).toBe('active');
    await expect.poll(() => facts.innerText()).not.toContain('none while paused');

    await page.getByRole('button', { name: 'Edit timing' }).click();
    const editor = page.getByRole('region', { name: 'Edit timing' });
    // A first run is typed in UTC, 24-hour, as the console shows every time; another shape is refused at the field.
    await editor.getByLabel('Fixed interval').check();
    await editor.getByLabel('Every (minutes)').fill('60');
    const firstRun = editor.getByLabel('First run (UTC, optional)');
    await firstRun.fill('01/01/2030, 9:00 AM');
    await editor.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => editor.locator('.field-problem').textContent()).toBe('Write a UTC time as YYYY-MM-DD HH:MM (24-hour, seconds optional), e.g. 2026-11-25 09:30.');
    expect(await firstRun.getAttribute('aria-invalid')).toBe('true');
    await firstRun.fill('2030-01-01 09:00');
    await editor.getByRole('button', { name: 'Preview' }).click();
    const hourly = await runRows(page, /^Next runs of the new timing/);
    expect(hourly[0]![1]).toBe('2030-01-01 09:00:00Z');
    expect(hourly[1]![1]).toBe('2030-01-01 10:00:00Z');
    await editor.getByLabel('Cron (calendar times in a zone)').check();
    await editor.getByLabel('Cron expression', { exact: true }).fill('*/15 * * * *');
    await editor.getByLabel('Time zone', { exact: true }).fill('UTC');
    const save = editor.getByRole('button', { name: 'Save' });
    expect(await save.isDisabled()).toBe(true);
    await editor.getByRole('button', { name: 'Preview' }).click();
    const rows = await runRows(page, /^Next runs of the new timing/);
    expect(rows).toHaveLength(10);
    const instants = rows.map(([, utc]) => Date.parse(utc.replace(' ', 'T')));
    instants.slice(1).forEach((at, i) => expect(at - instants[i]!).toBe(15 * 60_000));
    await c.screenshot('schedule-edit-timing');
    await save.click();
    await page.getByRole('status').filter({ hasText: 'Timing saved' }).waitFor();
    await expect.poll(() => facts.innerText()).toContain('Every 15 minutes, UTC');
    expect(await page.getByRole('region', { name: 'Edit timing' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Delete…' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm deletion' });
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    expect(await confirm.count()).toBe(0);
    await page.getByRole('button', { name: 'Delete…' }).click();
    await confirm.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByRole('heading', { name: 'Schedules' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Deleted “Nightly sync”' }).waitFor();
    await page.getByRole('table').waitFor();
    expect(await page.getByRole('link', { name: 'Nightly sync' }).count()).toBe(0);
    expect((await f.api.call('GET', `/schedules/${s.id}`)).status).toBe(404);

    await page.goto(`${f.ferry.baseUrl}/console/#/schedules/${s.id}`);
    await page.getByRole('heading', { name: 'No such schedule in this project' }).waitFor();
    expect(c.problems().filter((p) => !p.includes('404'))).toEqual([]);
    await c.close();
  });

  it.sequential('edits the policy, triggers and backfills, and shows the pause reason, run counts and recent runs', async ({ expect }) => {
    const hour = 3_600_000;
    const firstRun = Math.ceil((Date.now() + 60_000) / hour) * hour;
    const s = await createSchedule(f.api, { name: 'Hourly pull', timing: { type: 'interval', every_seconds: 3600, starts_at: new Date(firstRun).toISOString() }, request: { url: `${DEST}/pull`, queue: 'pulls' } });
    const c = await browser.openConsole(f.ferry.baseUrl);
    await signIn(c.page, f.apiKey);
    const page = c.page;
    await page.goto(`${f.ferry.baseUrl}/console/#/schedules/${s.id}`);
    await page.getByRole('heading', { name: 'Hourly pull' }).waitFor();
    const facts = page.getByRole('region', { name: 'Timing and status' });
    await expect.poll(() => facts.innerText()).toContain('run every time');
    expect(await page.getByRole('region', { name: 'Request sent at each run' }).innerText()).toContain('pulls');

    await page.getByRole('button', { name: 'Edit policy' }).click();
    const editor = page.getByRole('region', { name: 'Edit policy' });
    await editor.getByLabel(/^When a run is due/).selectOption('skip');
    await editor.getByLabel(/^Stop after/).fill('5');
    await editor.getByLabel(/^Pause after/).fill('500');
    await editor.getByRole('button', { name: 'Save policy' }).click();
    // Ferry's 422 at the field it names.
    await expect.poll(() => editor.locator('.field-problem').textContent()).toContain('INVALID_FIELD');
    await editor.getByLabel(/^Pause after/).fill('3');
    await editor.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('status').filter({ hasText: 'Policy saved' }).waitFor();
    await expect.poll(() => facts.innerText()).toContain('skip a run while the previous one is still going; ends after 5 runs; pauses after 3 failed runs in a row');

    const runNow = page.getByRole('region', { name: 'Run outside the timing' });
    await runNow.getByRole('button', { name: 'Trigger now' }).click();
    await page.getByRole('status').filter({ hasText: /Triggered: request req_/ }).waitFor();
    const history = page.getByRole('region', { name: 'Run history' });
    await expect.poll(() => history.locator('dd[data-count="triggered"]').innerText()).toBe('1');
    await history.getByRole('link', { name: /^req_/ }).waitFor();
    expect(await history.locator('tbody tr').first().innerText()).toContain('triggered by hand');
    // Under skip, a second trigger while the first request is still queued is refused, as the API answers it.
    await runNow.getByRole('button', { name: 'Trigger now' }).click();
    await expect.poll(() => runNow.getByRole('alert').innerText()).toContain('SCHEDULE_OVERLAP');

    await runNow.getByRole('button', { name: 'Backfill…' }).click();
    const iso = (t: number) => new Date(t).toISOString().slice(0, 16).replace('T', ' ');
    await runNow.getByLabel('From (UTC)').fill(iso(firstRun - 6 * hour));
    await runNow.getByLabel(/^To \(UTC/).fill(iso(firstRun - 3 * hour));
    await runNow.getByRole('button', { name: 'Backfill', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Backfilled: 3 requests created.' }).waitFor();
    await expect.poll(() => history.locator('dd[data-count="backfilled"]').innerText()).toBe('3');
    await c.screenshot('schedule-run-history');

    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => facts.innerText()).toContain('paused by hand');
    // The refusals provoked above (the 422 of the policy, the 409 of the second trigger) and nothing else.
    expect(c.problems().filter((p) => !p.includes('409') && !p.includes('422'))).toEqual([]);
    await c.close();
  });

  it.sequential('lists schedules with their timing in words and as given, next and last run, and pages with the cursor', async ({ expect }) => {
    const { api, apiKey } = await f.newProject();
    const names = ['Heartbeat', 'Weekday digest', 'Odd cron'];
    await createSchedule(api, { name: names[0], timing: { type: 'interval', every_seconds: 900 }, request: { url: `${DEST}/beat` } });
    await createSchedule(api, { name: names[1], timing: { type: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' }, request: { url: `${DEST}/digest` } });
    const odd = await createSchedule(api, { name: names[2], timing: { type: 'cron', expression: '5-10/2 3 * * *', timezone: 'UTC' }, request: { url: `${DEST}/odd` } });
    await api.call('POST', `/schedules/${odd.id}/pause`);

    const c = await browser.openConsole(f.ferry.baseUrl);
    await signIn(c.page, apiKey);
    const page = c.page;
    await page.goto(`${f.ferry.baseUrl}/console/#/schedules`);
    const table = page.getByRole('table');
    await table.getByRole('link', { name: 'Odd cron' }).waitFor();
    const text = await table.innerText();
    expect(text).toContain('Every 15 minutes');
    expect(text).toContain('every_seconds 900');
    expect(text).toContain('At 09:00 on weekdays, Europe/Berlin');
    expect(text).toContain('0 9 * * 1-5 (Europe/Berlin)');
    // A shape without words shows the expression itself.
    expect(text).toContain('Cron 5-10/2 3 * * *, UTC');
    expect(text).toContain('paused');
    expect(await table.locator('time').count()).toBeGreaterThanOrEqual(2);

    await page.getByLabel('Status on this page').selectOption('paused');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(page.url()).toContain('status=paused');
    await page.getByLabel('Status on this page').selectOption('');

    // Paging follows the API's cursor: 33 schedules are a full page of 25, newest first, and a second of 8.
    const seen: string[] = [];
    for (let i = 0; i < 30; i++) await createSchedule(api, { name: `Bulk ${String(i).padStart(2, '0')}`, timing: { type: 'interval', every_seconds: 3600 }, request: { url: DEST } });
    await page.reload();
    await table.locator('tbody tr').nth(24).waitFor();
    expect(await table.locator('tbody tr').count()).toBe(25);
    for (const link of await table.locator('tbody tr td:first-child a').all()) seen.push(await link.innerText());
    await page.getByRole('link', { name: 'Next page' }).click();
    await expect.poll(() => page.url()).toContain('cursor=');
    await table.getByRole('link', { name: 'Heartbeat' }).waitFor();
    for (const link of await table.locator('tbody tr td:first-child a').all()) seen.push(await link.innerText());
    expect(seen).toHaveLength(33);
    expect(new Set(seen).size).toBe(33);
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
    await page.getByRole('link', { name: 'First page' }).click();
    await table.getByRole('link', { name: 'Bulk 29' }).waitFor();

    // Readable on a phone: the page itself never scrolls sideways, only the table inside its frame.
    const narrow = await browser.openConsole(f.ferry.baseUrl, { viewport: NARROW });
    await signIn(narrow.page, apiKey);
    await narrow.page.goto(`${f.ferry.baseUrl}/console/#/schedules`);
    await narrow.page.getByRole('table').waitFor();
    expect(await narrow.page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    expect(narrow.problems()).toEqual([]);
    await narrow.close();
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it.sequential('shows markup in a schedule as text and runs none of it', async ({ expect }) => {
    const markup = '<img src=x onerror="window.__ferryPwned=1"><script>window.__ferryPwned=2</script>';
    const s = await createSchedule(f.api, {
      name: `<b>bold</b><img src=x onerror="window.__ferryPwned=3">`,
      timing: { type: 'cron', expression: '0 6 * * *', timezone: 'UTC' },
      request: { url: `${DEST}/hook?q=%3Cscript%3E`, headers: { 'X-Note': '<script>window.__ferryPwned=4</script>' }, body: { html: markup } },
    });
    const c = await browser.openConsole(f.ferry.baseUrl);
    await signIn(c.page, f.apiKey);
    const page = c.page;
    await page.goto(`${f.ferry.baseUrl}/console/#/schedules`);
    await page.getByRole('link', { name: s.name }).waitFor();
    await page.getByRole('link', { name: s.name }).click();
    await page.getByRole('heading', { name: s.name }).waitFor();
    const definition = await page.getByRole('region', { name: 'Request sent at each run' }).innerText();
    expect(definition).toContain('<img src=x onerror=\\"window.__ferryPwned=1\\">');
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    expect(await page.evaluate('window.__ferryPwned === undefined')).toBe(true);
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it.sequential("shows Ferry's 422 for an invalid cron next to the field", async ({ expect }) => {
    const c = await browser.openConsole(f.ferry.baseUrl);
    await signIn(c.page, f.apiKey);
    const page = c.page;
    await page.goto(`${f.ferry.baseUrl}/console/#/schedules/new`);
    await page.getByLabel('Name', { exact: true }).fill('Broken');
    await page.getByLabel('URL').fill(DEST);
    const cron = page.getByLabel('Cron expression', { exact: true });
    await cron.fill('61 * * * *');
    await page.getByRole('button', { name: 'Preview next runs' }).click();
    await page.getByRole('alert').filter({ hasText: '422' }).waitFor();
    expect(await page.getByRole('alert').innerText()).toContain('INVALID_TIMING');
    expect(await cron.getAttribute('aria-invalid')).toBe('true');
    const describedBy = await cron.getAttribute('aria-describedby');
    const problem = page.locator(`[id="${describedBy}"]`);
    expect(await problem.innerText()).toContain('INVALID_TIMING');
    expect(await page.getByRole('button', { name: 'Create schedule' }).isDisabled()).toBe(true);

    await cron.fill('0 7 * * *');
    await page.getByRole('button', { name: 'Preview next runs' }).click();
    await page.getByRole('table', { name: /^Next runs of this timing/ }).waitFor();
    expect(await cron.getAttribute('aria-invalid')).toBeNull();
    // The browser reports the refused call itself; nothing else may go wrong.
    expect(c.problems().filter((p) => !p.includes('422'))).toEqual([]);
    await c.close();
  });
});

describe.concurrent('the runs of a schedule that fires', () => {
  const certificate = sharedSelfSignedCertificate();
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

  it('lists the requests its runs created, each linking to the request page, and the list shows the last run', async ({ expect }) => {
    const startsAt = new Date(Date.now() + 3_000).toISOString();
    const s = await createSchedule(f.api, { name: 'Every minute', timing: { type: 'interval', every_seconds: 60, starts_at: startsAt }, request: { url: `${dest.url}/tick` } });
    const c = await browser.openConsole(f.ferry.baseUrl);
    await signIn(c.page, f.apiKey);
    const page = c.page;
    await page.goto(`${f.ferry.baseUrl}/console/#/schedules/${s.id}`);
    await page.getByRole('heading', { name: 'Every minute' }).waitFor();
    const runs = page.getByRole('region', { name: 'Recent runs' });
    // The panel reloads on its own: the run shows up without touching the page.
    const link = runs.getByRole('link', { name: /^req_/ });
    await link.first().waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByRole('region', { name: 'Timing and status' }).innerText(), { timeout: 30_000 }).toContain('request created');
    const requestId = await link.first().innerText();

    // On a device whose clock runs ten minutes behind, the run that happened reads as just now, never as to come.
    const behind = await browser.openConsole(f.ferry.baseUrl, { clockOffsetMs: -10 * 60_000 });
    await signIn(behind.page, f.apiKey);
    await behind.page.goto(`${f.ferry.baseUrl}/console/#/schedules/${s.id}`);
    const lastRun = behind.page.getByRole('region', { name: 'Timing and status' }).locator('dt:text-is("Last run") + dd');
    await expect.poll(() => lastRun.innerText(), { timeout: 30_000 }).toContain('request created');
    expect(await lastRun.locator('time .rel').textContent()).toBe('just now');
    // What is planned still reads ahead.
    expect(await behind.page.getByRole('region', { name: 'Timing and status' }).locator('dt:text-is("Next run") + dd time .rel').textContent()).toMatch(/^in \d+ min\.$/);
    expect(behind.problems()).toEqual([]);
    await behind.close();
    // The list of every request of this schedule, filtered by the API (schedule_id), holds the same run.
    await runs.getByRole('link', { name: 'Every request of this schedule' }).click();
    await expect.poll(() => page.url()).toContain(`schedule_id=${s.id}`);
    // The address changes before the list replaces the schedule's page, which links the same run twice (its run
    // history and its recent runs): the click waits for the list's table.
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    await page.locator('table.requests').getByRole('link', { name: requestId }).click();
    await expect.poll(() => page.url()).toContain(`#/requests/${requestId}`);

    // The list, with schedules of every kind beside the one that fired: its last run and outcome show there too.
    await createSchedule(f.api, { name: 'Weekday digest', timing: { type: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' }, request: { url: `${dest.url}/digest` } });
    const nightly = await createSchedule(f.api, { name: 'Nightly export', timing: { type: 'cron', expression: '30 2 * * *', timezone: 'America/New_York' }, request: { url: `${dest.url}/export` } });
    await f.api.call('POST', `/schedules/${nightly.id}/pause`);
    await page.goto(`${f.ferry.baseUrl}/console/#/schedules`);
    const table = page.getByRole('table');
    await table.getByRole('link', { name: 'Nightly export' }).waitFor();
    const fired = table.locator('tbody tr').filter({ hasText: 'Every minute' });
    expect(await fired.innerText()).toContain('request created');
    await c.screenshot('schedules-list');
    expect(c.problems()).toEqual([]);
    await c.close();
  });
});
