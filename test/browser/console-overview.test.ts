import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/api-client.js';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { NARROW, signIn, useConsoleBrowser } from '../support/console-browser.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { useFerry } from '../support/fixture.js';

const certificate = sharedSelfSignedCertificate();

describe('the overview, the console front page', () => {
  // Deliveries move the counts the page draws, so this file runs a server that delivers.
  const f = useFerry({
    env: { FERRY_ROLES: 'api,delivery', FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: certificate.certFile, FERRY_RETRY_BASE_MS: '40' },
  });
  const browser = useConsoleBrowser();
  let dest: Destination;
  beforeAll(async () => {
    dest = await startDestination({ certificate });
    dest.on('/down', replies.status(500));
  });
  afterAll(async () => {
    await dest?.close();
  });

  async function create(input: Record<string, unknown>): Promise<string> {
    const res = await f.api.create(input);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return (res.body.data as { id: string }).id;
  }

  it('draws the day with real counts, the failure rate and the backlog, and a bar leads to its filtered list', async () => {
    for (let i = 0; i < 3; i++) await create({ url: `${dest.url}/ok` });
    const failing = await create({ url: `${dest.url}/down`, retry: { max_attempts: 1 } });
    await create({ url: `${dest.url}/ok`, queue: 'nightly', delay: '1h' });
    await eventually(async () => {
      const s = (await f.api.call<{ totals: { delivered: number; failed: number } }>('GET', '/stats')).body.data;
      return s.totals.delivered === 3 && s.totals.failed === 1 ? true : undefined;
    }, 20_000);

    const c = await browser.openConsole(f.ferry.baseUrl, { hash: '' });
    await signIn(c.page, f.apiKey);
    const { page } = c;
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const tiles = page.getByRole('list', { name: 'Totals of the last 24 hours' });
    await expect.poll(() => tiles.textContent()).toContain('Accepted5');
    const text = (await tiles.textContent()) ?? '';
    expect(text).toContain('Delivered3');
    expect(text).toContain('Failed1');
    expect(await page.getByTestId('failure-rate').textContent()).toBe('25 %');

    // The chart is inline SVG, its bars sized by the counts: one failed bar, one delivered bar in the current span.
    const chart = page.getByRole('img', { name: 'Requests per 15 minutes over the last 24 hours' });
    expect(await chart.evaluate((el) => el.tagName.toLowerCase())).toBe('svg');
    expect(await chart.locator('rect.failed').count()).toBe(1);
    expect(await chart.locator('rect.delivered').count()).toBe(1);
    const [failedH, deliveredH] = await Promise.all([
      chart.locator('rect.failed').evaluate((r) => Number(r.getAttribute('height'))),
      chart.locator('rect.delivered').evaluate((r) => Number(r.getAttribute('height'))),
    ]);
    expect(deliveredH / failedH).toBeCloseTo(3, 1);

    // The backlog shows the scheduled request in its queue.
    const backlog = page.getByRole('table', { name: 'Backlog by queue' });
    await backlog.getByRole('row').filter({ hasText: 'nightly' }).waitFor();
    await c.screenshot('overview');

    // The failed part of the bar opens the requests list filtered to failures created in its 15 minutes.
    await chart.getByRole('link', { name: /^Failed / }).click();
    await expect.poll(() => page.evaluate('location.hash')).toMatch(/^#\/requests\?status=failed&from=[^&]+&to=/);
    const hash = new URLSearchParams(String(await page.evaluate('location.hash')).split('?')[1]);
    expect(Date.parse(hash.get('to')!) - Date.parse(hash.get('from')!)).toBe(15 * 60_000);
    await page.getByRole('row').filter({ hasText: failing }).waitFor();
    expect(await page.locator('table.requests tbody tr').count()).toBe(1);
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it('fits a narrow screen', async () => {
    const c = await browser.openConsole(f.ferry.baseUrl, { hash: '', viewport: NARROW });
    await signIn(c.page, f.apiKey);
    await c.page.getByRole('img', { name: /^Requests per 15 minutes/ }).waitFor();
    expect(await c.page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
    await c.screenshot('overview-narrow');
    expect(c.problems()).toEqual([]);
    await c.close();
  });
});
