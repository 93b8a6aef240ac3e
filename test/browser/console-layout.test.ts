import { describe, expect, it } from 'vitest';
import { NARROW, signIn, useConsoleBrowser } from '../support/console-browser.js';
import { DEST, useFerry } from '../support/fixture.js';

/** Requests to look at: accepted with a delay, so nothing delivers them while the page is open. */
async function someRequests(f: ReturnType<typeof useFerry>, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await f.api.create({ url: `${DEST}/${i}`, body: { n: i }, delay: '1h' });
    expect(res.status).toBe(202);
    ids.push((res.body.data as { id: string }).id);
  }
  return ids;
}

describe('the console at work: keyboard, narrow screens, times and IDs', () => {
  const f = useFerry();
  const browser = useConsoleBrowser();

  it('can be used with the keyboard alone, from sign-in to every section', async () => {
    await someRequests(f, 2);
    const c = await browser.openConsole(f.ferry.baseUrl);
    // The key field takes the focus once the page has started (waited for: on a busy machine the script comes
    // later than the page); Enter signs in.
    await expect.poll(() => c.page.evaluate('document.activeElement ? document.activeElement.id : ""')).toBe('api-key');
    await c.page.keyboard.type(f.apiKey);
    await c.page.keyboard.press('Enter');
    await c.page.getByRole('navigation', { name: 'Sections' }).waitFor();
    const reached: string[] = [];
    for (let i = 0; i < 9; i++) {
      await c.page.keyboard.press('Tab');
      reached.push(await c.page.evaluate('document.activeElement ? document.activeElement.textContent.trim() : ""'));
    }
    expect(reached).toEqual(expect.arrayContaining(['Requests', 'Failures', 'Send', 'Schedules', 'Sign out']));
    // A focused link opens with Enter: the focus is on a real link, not a clickable box.
    await c.page.getByRole('link', { name: 'Schedules', exact: true }).focus();
    await c.page.keyboard.press('Enter');
    await expect.poll(() => c.page.evaluate('location.hash')).toMatch(/^#\/schedules/);
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it('shows times both relative and absolute, and copies an ID', async () => {
    const [id] = await someRequests(f, 1);
    const c = await browser.openConsole(f.ferry.baseUrl);
    await c.context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn(c.page, f.apiKey);
    const row = c.page.getByRole('row').filter({ hasText: id! });
    await row.waitFor();
    const time = row.locator('time').first();
    expect(await time.locator('.rel').textContent()).toMatch(/ago|now|in \d/);
    expect(await time.locator('.abs').textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z$/);
    await row.getByRole('button', { name: `Copy ${id}` }).click();
    await expect.poll(() => c.page.evaluate('navigator.clipboard.readText()')).toBe(id);
    expect(c.problems()).toEqual([]);
    await c.close();
  });

  it('stays readable on a narrow screen: nothing wider than the window, the requests table folded into it', async () => {
    const [id] = await someRequests(f, 3);
    const long = await f.api.create({ url: `${DEST}/orders/2026/11/a-rather-long-path-segment-that-no-phone-fits-on-one-line?tenant=acme&trace=0123456789abcdef`, delay: '1h' });
    expect(long.status).toBe(202);
    const c = await browser.openConsole(f.ferry.baseUrl, { viewport: NARROW });
    await signIn(c.page, f.apiKey);
    await c.page.getByRole('row').nth(1).waitFor();
    await c.screenshot('requests-narrow');
    const overflow = await c.page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    // Nothing of a row lies past the window's edge, to be scrolled to or missed: each row folds to the width.
    const cellsOutside = await c.page.evaluate(`[...document.querySelectorAll('table.requests tbody td')]
      .filter((td) => getComputedStyle(td).display !== 'none')
      .map((td) => td.getBoundingClientRect())
      .filter((r) => r.left < 0 || r.right > window.innerWidth).length`);
    expect(cellsOutside).toBe(0);
    expect(await c.page.evaluate(`(() => { const w = document.querySelector('.table-wrap'); return w.scrollWidth - w.clientWidth; })()`)).toBeLessThanOrEqual(0);
    // Everything a row says is there to read: status, ID and its copy button, method, URL, both times.
    const row = c.page.getByRole('row').filter({ hasText: id! });
    for (const part of [row.locator('.badge'), row.getByRole('link', { name: id! }), row.getByRole('button', { name: `Copy ${id!}` }), row.locator('td.url'), row.locator('time').first()]) {
      const box = await part.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(NARROW.width);
    }
    const rowText = await row.innerText();
    expect(rowText).toContain('POST');
    expect(rowText).toMatch(/Created/i);
    expect(rowText).toMatch(/Next \/ ended/i);
    expect(c.problems()).toEqual([]);
    await c.close();
  });
});
