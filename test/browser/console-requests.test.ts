import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { NARROW, signIn, useConsoleBrowser, type ConsolePage, type OpenOptions } from '../support/console-browser.js';
import { Budgets } from '../support/budget-client.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { useFerry } from '../support/fixture.js';
import { eventually } from '../support/api-client.js';

const certificate = sharedSelfSignedCertificate();

/** The browser logs every 4xx answer to fetch as a console error; an answer a test asked for is no problem. */
function unexpected(c: ConsolePage, ...statuses: number[]): string[] {
  return c.problems().filter((p) => !statuses.some((s) => p.includes(`status of ${s}`)));
}

async function goTo(page: Page, hash: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
}

describe('the Requests pages of the console', () => {
  const f = useFerry({
    env: {
      FERRY_ROLES: 'api,delivery',
      FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
      FERRY_DELIVERY_CA_FILE: certificate.certFile,
      FERRY_RETRY_BASE_MS: '300',
    },
  });
  const browser = useConsoleBrowser();
  let dest: Destination;
  beforeAll(async () => {
    dest = await startDestination({ certificate });
  });
  afterAll(async () => {
    await dest?.close();
  });

  async function create(input: Record<string, unknown>): Promise<string> {
    const res = await f.api.create(input);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return (res.body.data as { id: string }).id;
  }

  async function opened(hash?: string, options: OpenOptions = {}): Promise<ConsolePage> {
    const c = await browser.openConsole(f.ferry.baseUrl, options);
    await signIn(c.page, f.apiKey);
    if (hash !== undefined) await goTo(c.page, hash);
    return c;
  }

  it('sends a request through the form and follows it to succeeded, live, on its page and on the list', async () => {
    dest.on('/form', replies.delayedHeaders(1_500, 200));
    const c = await opened();
    const { page } = c;
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Send' }).click();
    await page.getByLabel('URL', { exact: true }).fill(`${dest.url}/form`);
    await page.getByLabel('Method').selectOption('PUT');
    await page.getByLabel('Headers').fill('X-Tenant: acme\nX-Trace: t-1');
    await page.getByLabel('Body (JSON)').fill('{"order": 42}');
    await page.getByLabel('Metadata (JSON)').fill('{"customer": "c-7"}');
    // The form sends retry.max_attempts: a count of attempts with the first among them, 3 when left out.
    expect(await page.locator('#s-attempts-hint').textContent()).toBe('1 to 20, the first included; empty: 3 (the first and up to 2 retries).');
    await c.screenshot('send-form');
    await page.getByRole('button', { name: 'Send', exact: true }).click();

    const accepted = page.getByRole('status').filter({ hasText: 'Accepted' });
    await accepted.waitFor();
    const id = (await accepted.locator('code').first().textContent()) ?? '';
    expect(id).toMatch(/^req_/);
    // A marker that a reload would wipe: everything below happens on this one page.
    await page.evaluate('window.__sameDocument = true');

    await accepted.getByRole('link', { name: 'Follow its delivery' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain(id);
    await expect.poll(() => page.locator('.headline').textContent(), { timeout: 20_000 }).toContain('Delivered on attempt 1 of 3 (HTTP 200)');
    const attempts = page.getByRole('list', { name: 'Attempts' });
    await expect.poll(() => attempts.textContent()).toContain('Attempt 1');
    expect(await attempts.textContent()).toContain('HTTP 200');
    const definition = page.getByRole('region', { name: 'Definition' });
    expect(await definition.textContent()).toContain('X-Tenant');
    expect(await definition.textContent()).toContain('[REDACTED]');
    expect(await definition.textContent()).toContain('c-7');
    const definitionText = await definition.innerText();
    expect(definitionText).toMatch(/Attempts\s+3 in all: the first and up to 2 retries, exponential backoff/);
    expect(definitionText).not.toContain('Retries');
    const [got] = await dest.waitForRequests('/form', 1);
    expect(got!.method).toBe('PUT');
    expect(JSON.parse(got!.body.toString())).toEqual({ order: 42 });
    expect(got!.headers['x-tenant']).toBe('acme');

    // The list is live too: a request accepted while it is open moves to succeeded on screen.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Requests' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: id }).textContent()).toContain('succeeded');
    const later = await create({ url: `${dest.url}/form`, metadata: { step: 'list' } });
    const row = page.getByRole('row').filter({ hasText: later });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain('succeeded');
    expect(await row.textContent()).toContain(`${dest.url}/form`);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it('explains each retry in words: Retry-After against backoff, and when the next try is', async () => {
    let calls = 0;
    dest.on('/busy', (exchange) => {
      calls += 1;
      return calls === 1 ? replies.status(503, { 'Retry-After': '4' })(exchange) : replies.status(200)(exchange);
    });
    const id = await create({ url: `${dest.url}/busy`, retry: { max_attempts: 3 } });
    const c = await opened(`#/requests/${id}`);
    const { page } = c;
    const attempts = page.getByRole('list', { name: 'Attempts' });
    await expect.poll(() => attempts.textContent(), { timeout: 20_000 }).toContain('Retry-After: 4 (read as 4 s) chosen over backoff');
    const text = (await attempts.textContent()) ?? '';
    expect(text).toContain('Retried because the destination answered 503.');
    // Read before the retry ("in 3 sec.", "now") or, on a slow run, once it was due ("was due 1 sec. ago").
    expect(text).toMatch(/next try (in|now|was due)/);
    expect(text).toContain('HTTP 503');
    await c.screenshot('request-attempts-retry');
    await expect.poll(() => page.locator('.headline').textContent(), { timeout: 20_000 }).toContain('Delivered on attempt 2 of 3');
    expect(await attempts.textContent()).toContain('Attempt 2');

    // Without Retry-After, backoff decides; once the budget is spent, the request fails and says why.
    dest.on('/down', replies.status(500, { 'Content-Type': 'application/json', 'X-Request-Id': 'up-7' }, '{"error":"database down"}'));
    const failing = await create({ url: `${dest.url}/down`, retry: { max_attempts: 2 } });
    await goTo(page, `#/requests/${failing}`);
    await expect.poll(() => page.locator('.headline').textContent(), { timeout: 20_000 }).toContain('Failed after 2 attempts (2 of 2 allowed): HTTP 500');
    const failed = (await attempts.textContent()) ?? '';
    expect(failed).toContain('No Retry-After header; backoff of');
    expect(failed).toContain('next try was due');
    // The last attempt says why it ended the request, and each keeps what the destination answered.
    expect(failed).toContain('Not retried: this was the last attempt allowed.');
    await page.locator('.attempt-response summary').last().click();
    const answer = (await page.locator('.attempt-response').last().textContent()) ?? '';
    expect(answer).toContain('x-request-idup-7');
    expect(answer).toContain('{"error":"database down"}');
    // A failed request can be replayed, not cancelled.
    const actions = page.getByRole('region', { name: 'Actions' });
    expect(await actions.getByRole('button', { name: 'Cancel', exact: true }).count()).toBe(0);
    expect(await actions.getByRole('button', { name: 'Replay', exact: true }).count()).toBe(1);
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it('offers Cancel only while a request is active and Replay only once it has ended, and says what each did', async () => {
    const delayed = await create({ url: `${dest.url}/later`, delay: '1h' });
    const c = await opened(`#/requests/${delayed}`);
    const { page } = c;
    const actions = page.getByRole('region', { name: 'Actions' });
    const cancel = actions.getByRole('button', { name: 'Cancel', exact: true });
    const replay = actions.getByRole('button', { name: 'Replay', exact: true });
    await expect.poll(() => page.locator('.headline').textContent()).toContain('Waiting for its delivery time');
    expect(await replay.count()).toBe(0);
    await cancel.click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Cancellation requested' }).count()).toBe(1);
    await expect.poll(() => page.locator('.headline').textContent(), { timeout: 30_000 }).toContain('Cancelled');
    // Cancelled, it has ended: nothing to cancel any more, and it can be replayed.
    await expect.poll(() => cancel.count()).toBe(0);
    expect(await actions.textContent()).toContain('Ended: it can be replayed as a new request.');

    await replay.click();
    const replayed = page.getByRole('status').filter({ hasText: 'Replayed as' });
    await replayed.waitFor();
    const copy = (await replayed.locator('code').textContent()) ?? '';
    expect(copy).toMatch(/^req_/);
    expect(copy).not.toBe(delayed);
    await replayed.getByRole('link').click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain(copy);
    expect(await page.getByRole('region', { name: 'Definition' }).textContent()).toContain(`Replay of ${delayed}`);
    await expect.poll(() => page.locator('.headline').textContent(), { timeout: 20_000 }).toContain('Delivered on attempt 1');

    // The copy succeeded: it cannot be cancelled (the API would answer 409), only replayed again.
    await expect.poll(() => replay.count()).toBe(1);
    expect(await cancel.count()).toBe(0);

    // An ID this project does not have is said in so many words.
    await goTo(page, '#/requests/req_01NOSUCHREQUEST0000000000');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('No such request in this project');
    expect(unexpected(c, 404)).toEqual([]);
    await c.close();
  });

  it('shows markup in a URL, metadata, headers and body as text, and runs none of it', async () => {
    const c = await opened('#/send');
    const { page } = c;
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    // What cannot be sent at all is caught in the page; what the API refuses comes back as its 422, by the field.
    await page.getByLabel('URL', { exact: true }).fill('http://hooks.example.com/in');
    await page.getByLabel('Headers').fill('no colon here');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => page.locator('.field-error').textContent()).toBe('Line 1 is not "Name: value".');
    expect(await page.getByLabel('Headers').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Headers').fill('');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Ferry refused the input (422 INVALID_URL)');
    expect(await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('.field-error').textContent()).toContain('https');

    // URLs have no spaces, and Ferry stores them WHATWG-normalised (`<` becomes `%3C`): what is left still reads as markup.
    const urlMarkup = `${dest.url}/markup?q="><img/src=x/onerror=alert(1)>&next=javascript:alert(3)`;
    await page.getByLabel('URL', { exact: true }).fill(urlMarkup);
    await page.getByLabel('Headers').fill('X-Note: <script>window.__pwned = "header"</script>');
    await page.getByLabel('Body (JSON)').fill('{"html": "<img src=x onerror=\\"window.__pwned = \'body\'\\">"}');
    await page
      .getByLabel('Metadata (JSON)')
      .fill(JSON.stringify({ img: '<img src=x onerror="window.__pwned = \'img\'; alert(2)">', script: '<script>window.__pwned = "script"</script>', link: 'javascript:window.__pwned="link"' }));
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const accepted = page.getByRole('status').filter({ hasText: 'Accepted' });
    await accepted.waitFor();
    const id = (await accepted.locator('code').first().textContent()) ?? '';
    await accepted.getByRole('link', { name: 'Follow its delivery' }).click();
    const definition = page.getByRole('region', { name: 'Definition' });
    await expect.poll(() => definition.textContent()).toContain('<img src=x onerror="window.__pwned = \'img\'; alert(2)">');
    const shown = (await definition.textContent()) ?? '';
    expect(shown).toContain('<script>window.__pwned = "script"</script>');
    expect(shown).toContain('javascript:window.__pwned="link"');
    await expect.poll(() => page.locator('.headline').textContent(), { timeout: 20_000 }).toContain('Delivered');
    // The URL is shown as the API stores it, as text.
    const storedUrl = (await page.locator('.url-text').textContent()) ?? '';
    expect(storedUrl).toContain('/markup?q=');
    expect(storedUrl).toContain('onerror=alert(1)');

    await goTo(page, `#/requests?search=${encodeURIComponent('/markup')}`);
    await expect.poll(() => page.getByRole('row').filter({ hasText: id }).count()).toBe(1);
    expect(await page.getByRole('row').filter({ hasText: id }).locator('td.url').textContent()).toBe(storedUrl);

    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    expect(await page.evaluate('document.querySelectorAll("main img, main script, main a[href^=javascript]").length')).toBe(0);
    expect(dialogs).toEqual([]);
    expect(unexpected(c, 422)).toEqual([]);
    await c.close();
  });

  it('narrows the list by status, search and UTC time, keeps the filters in the address, pages with the cursor, and shows a refused filter', async () => {
    const tag = `f${Date.now().toString(36)}`;
    const done = await create({ url: `${dest.url}/${tag}-alpha` });
    const waiting = await create({ url: `${dest.url}/${tag}-beta`, delay: '2h' });
    // A browser away from UTC: the time filters must still mean UTC, as they say.
    const c = await opened(undefined, { timezoneId: 'America/New_York' });
    const { page } = c;
    const rowOf = (id: string) => page.getByRole('row').filter({ hasText: id });
    // Which of the two rows are shown: [done, waiting].
    const shown = () => Promise.all([rowOf(done).count(), rowOf(waiting).count()]);
    // Unfiltered, the list holds what the tests before left: every status side by side.
    await expect.poll(() => rowOf(waiting).count()).toBe(1);
    await c.screenshot('requests-list');
    // At phone width each row folds to the window's width, its status in view.
    const narrow = await browser.openConsole(f.ferry.baseUrl, { viewport: NARROW });
    await signIn(narrow.page, f.apiKey);
    const badge = narrow.page.getByRole('row').filter({ hasText: waiting }).locator('.badge');
    await badge.waitFor();
    const box = await badge.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(NARROW.width);
    expect(narrow.problems()).toEqual([]);
    await narrow.close();
    await goTo(page, `#/requests?search=${tag}`);
    await expect.poll(() => rowOf(done).textContent(), { timeout: 20_000 }).toContain('succeeded');
    expect(await rowOf(waiting).textContent()).toContain('due in');

    await page.getByLabel('Status').selectOption('scheduled');
    await expect.poll(() => page.evaluate('location.hash')).toBe(`#/requests?status=scheduled&search=${tag}`);
    await expect.poll(shown).toEqual([0, 1]);

    await page.getByLabel('Status').selectOption('');
    // A choice applies at once; the form takes the address's values when it lands, so type after it has: once the
    // rows of the new address are shown, which comes after.
    await expect.poll(() => page.evaluate('location.hash')).toBe(`#/requests?search=${tag}`);
    await expect.poll(shown).toEqual([1, 1]);
    await page.getByLabel('Search').fill(`${tag}-alpha`);
    await page.getByLabel('Search').press('Enter');
    await expect.poll(() => page.evaluate('location.hash')).toBe(`#/requests?search=${tag}-alpha`);
    await expect.poll(shown).toEqual([1, 0]);

    // The address is the view: a reload (or a bookmark) shows the same filters and the same rows.
    await page.reload();
    await expect.poll(shown).toEqual([1, 0]);
    expect(await page.getByLabel('Search').inputValue()).toBe(`${tag}-alpha`);

    // Paging follows the API's cursor forward, and retraces it back.
    await goTo(page, `#/requests?search=${tag}&limit=1`);
    await expect.poll(shown).toEqual([0, 1]);
    expect(await page.getByRole('row').count()).toBe(2);
    await page.getByRole('button', { name: 'Older →' }).click();
    await expect.poll(shown).toEqual([1, 0]);
    expect(await page.evaluate('location.hash')).toContain('cursor=');
    await page.getByRole('button', { name: '← Newer' }).click();
    await expect.poll(shown).toEqual([0, 1]);
    expect(await page.evaluate('location.hash')).not.toContain('cursor=');

    // The time bounds are typed in UTC, 24-hour, as the list shows times: a row's own creation time, pasted as
    // shown, is sent as that instant and finds the row.
    const sentFilter = async (name: string) => new URLSearchParams(((await page.evaluate('location.hash')) as string).split('?')[1]).get(name);
    await goTo(page, `#/requests?search=${tag}`);
    await expect.poll(shown).toEqual([1, 1]);
    const before = page.getByLabel('Created before (UTC)');
    await before.fill('2000-01-01 0:00');
    await before.press('Enter');
    await expect.poll(() => sentFilter('to')).toBe('2000-01-01T00:00:00Z');
    await page.getByText('No request matches these filters.').waitFor();
    // The form takes the address's values once the navigation lands, shown as the console writes times.
    await expect.poll(() => before.inputValue()).toBe('2000-01-01 00:00:00');
    await goTo(page, `#/requests?search=${tag}`);
    await expect.poll(shown).toEqual([1, 1]);
    const waitingCreated = ((await rowOf(waiting).locator('time .abs').first().textContent()) ?? '').trim();
    expect(waitingCreated).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
    const from = page.getByLabel('Created from (UTC)');
    await from.fill(waitingCreated);
    await from.press('Enter');
    await expect.poll(() => sentFilter('from')).toBe(waitingCreated.replace(' ', 'T'));
    await expect.poll(() => rowOf(waiting).count()).toBe(1);
    await expect.poll(() => from.inputValue()).toBe(waitingCreated.replace('Z', ''));
    // A time in another shape (a 12-hour one, a local date) is refused at the field, and nothing is sent.
    const hashBefore = await page.evaluate('location.hash');
    await from.fill('11/25/2026, 09:30 PM');
    await from.press('Enter');
    await expect.poll(() => page.locator('#f-from-error').textContent()).toBe('Write a UTC time as YYYY-MM-DD HH:MM (24-hour, seconds optional), e.g. 2026-11-25 09:30.');
    expect(await from.getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('location.hash')).toBe(hashBefore);

    // The queue and the flow key are typed, sent under the API's names, and narrow the rows.
    await goTo(page, `#/requests?search=${tag}`);
    await expect.poll(shown).toEqual([1, 1]);
    await page.getByLabel('Queue').fill('default');
    await page.getByLabel('Queue').press('Enter');
    await expect.poll(() => sentFilter('queue')).toBe('default');
    await expect.poll(shown).toEqual([1, 1]);
    await expect.poll(() => page.getByLabel('Queue').inputValue()).toBe('default');
    await page.getByLabel('Flow key').fill('vendor:none');
    await page.getByLabel('Flow key').press('Enter');
    await expect.poll(() => sentFilter('flow_key')).toBe('vendor:none');
    await page.getByText('No request matches these filters.').waitFor();
    // The last response code likewise: the delivered request's 200, and a code none of them got.
    await goTo(page, `#/requests?search=${tag}`);
    await expect.poll(shown).toEqual([1, 1]);
    await page.getByLabel('Last response code').fill('200');
    await page.getByLabel('Last response code').press('Enter');
    await expect.poll(() => sentFilter('response_status_code')).toBe('200');
    await expect.poll(shown).toEqual([1, 0]);
    await page.getByLabel('Last response code').fill('503');
    await page.getByLabel('Last response code').press('Enter');
    await expect.poll(() => sentFilter('response_status_code')).toBe('503');
    await page.getByText('No request matches these filters.').waitFor();
    await goTo(page, '#/requests?response_status_code=5xx');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Ferry refused the input (422');

    // A filter the API refuses is shown as its 422, not silently dropped.
    await goTo(page, '#/requests?from=yesterday');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Ferry refused the input (422');
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => page.evaluate('location.hash')).toBe('#/requests');
    await expect.poll(() => page.getByRole('alert').count()).toBe(0);
    expect(unexpected(c, 422)).toEqual([]);
    await c.close();
  });

  it('says which flow key holds a request back and why, links it, and the request goes once the key is resumed there', async () => {
    const key = `held:${Date.now().toString(36)}`;
    const keys = new Budgets(f.api, 'flow-keys');
    await keys.ok(keys.pause(key));
    dest.on('/held', replies.status(200));
    const id = await create({ url: `${dest.url}/held`, flow_keys: [key] });
    const c = await opened(`#/requests/${id}`);
    const { page } = c;
    const headline = page.locator('.headline');
    await expect.poll(() => headline.innerText(), { timeout: 20_000 }).toContain(`Held back: waiting for flow key ${key}: paused.`);
    expect(await page.getByRole('region', { name: 'Definition' }).innerText()).toMatch(new RegExp(`Flow keys\\s+${key}`));
    await c.screenshot('request-held');
    await goTo(page, '#/requests');
    await expect.poll(() => page.getByRole('row').filter({ hasText: id }).innerText()).toContain('held: paused');
    await page.goBack();

    await headline.getByRole('link', { name: key }).click();
    await page.getByRole('heading', { name: `Flow key ${key}` }).waitFor();
    await expect.poll(() => page.getByRole('region', { name: 'Now' }).innerText(), { timeout: 10_000 }).toMatch(/paused: 1/);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('status').filter({ hasText: 'Resumed' }).waitFor();
    await page.goBack();
    await expect.poll(() => headline.innerText(), { timeout: 20_000 }).toContain('Delivered on attempt 1');
    expect(await dest.waitForRequests('/held', 1)).toHaveLength(1);
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it("marks a flow key a destination's 429 has slowed, with the rate it is held to", async () => {
    const key = `slowed:${Date.now().toString(36)}`;
    const keys = new Budgets(f.api, 'flow-keys');
    await keys.ok(keys.put(key, { rate: { limit: 10, period: '1s' } }));
    dest.on('/slow', replies.status(429));
    await create({ url: `${dest.url}/slow`, flow_keys: [key], retry: { max_attempts: 1 } });
    const c = await opened(`#/flow-keys/${key}`);
    const { page } = c;
    const notice = page.getByRole('region', { name: 'Now' }).locator('.slowed-notice');
    await expect.poll(() => notice.count(), { timeout: 20_000 }).toBe(1);
    expect(await notice.innerText()).toMatch(/^A destination has slowed this flow key\. It answered 429 or 503, so [\d.]+ attempts per 1s start instead of 10\./);
    expect(await page.locator('.budget-head .badge.slowed').innerText()).toBe('slowed');
    await c.screenshot('flow-key-slowed');
    const admitted = (await keys.ok(keys.get(key))).admitted_rate!;
    expect(admitted).toBeLessThan(10);
    await goTo(page, '#/flow-keys');
    await expect.poll(() => page.getByRole('row').filter({ hasText: key }).innerText()).toContain('slowed');
    expect(c.problems()).toEqual([]);
    await c.close();
  });
  it('links a request to the callback that reported its ending, and the callback back to it', async () => {
    const id = await create({ url: `${dest.url}/reported`, callbacks: { on_success: `${dest.url}/report` } });
    const callback = await eventually(
      async () => (await f.api.call<{ callback_request_ids: string[] }>('GET', `/requests/${id}`)).body.data.callback_request_ids[0],
      20_000,
    );
    const c = await opened(`#/requests/${id}`);
    const { page } = c;
    const definition = page.getByRole('region', { name: 'Definition' });
    await expect.poll(() => definition.innerText()).toContain(`On success: ${dest.url}/report`);
    expect(await definition.innerText()).toMatch(new RegExp(`Reported by\\s+${callback}`));
    await definition.getByRole('link', { name: callback }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain(callback);
    await expect.poll(() => page.getByRole('region', { name: 'Definition' }).innerText()).toMatch(new RegExp(`Callback for\\s+${id}`));
    expect(c.problems()).toEqual([]);
    await c.close();
  });
});
