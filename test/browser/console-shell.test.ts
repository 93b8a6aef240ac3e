import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFerry } from '../support/fixture.js';
import { signIn, useConsoleBrowser } from '../support/console-browser.js';

/** What `npm run build` wrote, and the server under test serves. */
const BUILT_CONSOLE_DIR = resolve(import.meta.dirname, '../../dist/console');

describe('the console is served by Ferry', () => {
  const f = useFerry();

  it('serves its page and assets without an API key, under a strict policy', async () => {
    const page = await fetch(`${f.ferry.baseUrl}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((a) => !a.startsWith('data:'));
    expect(assets).toHaveLength(2);
    // No inline script, style or handler: the policy would refuse them anyway.
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle=|\son\w+=/);
    for (const asset of assets) {
      const res = await fetch(`${f.ferry.baseUrl}/console/${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-security-policy')).toBe(csp);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  it('sends the prebuilt gzip copy to clients that take it, and redirects /console', async () => {
    const gz = await fetch(`${f.ferry.baseUrl}/console/`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.text()).toContain('<div id="app">');
    const redirect = await fetch(`${f.ferry.baseUrl}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/console/');
    const missing = await fetch(`${f.ferry.baseUrl}/console/nothing.js`);
    expect(missing.status).toBe(404);
  });

  it('stays within its size budget: under 150 KB gzipped in all', () => {
    const gzipped = readdirSync(BUILT_CONSOLE_DIR)
      .filter((file) => file.endsWith('.gz'))
      .reduce((sum, file) => sum + statSync(join(BUILT_CONSOLE_DIR, file)).size, 0);
    expect(gzipped).toBeGreaterThan(0);
    expect(gzipped).toBeLessThan(150 * 1024);
  });
});

describe('signing in and out', () => {
  const f = useFerry();
  const browser = useConsoleBrowser();

  it('says clearly when the key is wrong, and keeps nothing', async () => {
    const c = await browser.openConsole(f.ferry.baseUrl);
    await c.page.getByLabel('API key').fill('fy_wrong_key');
    await c.page.getByRole('button', { name: 'Sign in' }).click();
    const alert = c.page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('The API key was not accepted (401');
    expect(await c.page.evaluate('sessionStorage.length + localStorage.length')).toBe(0);
    expect(await c.context.cookies()).toEqual([]);
    await c.screenshot('sign-in-wrong-key');
    // The failed sign-in's 401 is the only console error the browser may report: it logs failed fetches itself.
    expect(c.problems().filter((p) => !p.includes('401'))).toEqual([]);
    await c.close();
  });

  it('keeps the key in this tab only, across reloads, until sign out', async () => {
    const c = await browser.openConsole(f.ferry.baseUrl);
    await signIn(c.page, f.apiKey);
    const stored = await c.page.evaluate('({ session: Object.values(sessionStorage), local: localStorage.length })');
    expect(stored).toEqual({ session: [f.apiKey], local: 0 });
    expect(await c.context.cookies()).toEqual([]);
    await c.page.reload();
    await c.page.getByRole('navigation', { name: 'Sections' }).waitFor();
    // Another tab of the same browser starts signed out: session storage is per tab.
    const other = await c.context.newPage();
    await other.goto(`${f.ferry.baseUrl}/console/`);
    await other.getByLabel('API key').waitFor();
    await other.close();
    await c.page.getByRole('button', { name: 'Sign out' }).click();
    await c.page.getByLabel('API key').waitFor();
    expect(await c.page.evaluate('sessionStorage.length')).toBe(0);
    expect(c.problems()).toEqual([]);
    await c.close();
  });
});

describe('an operator can turn the console off', () => {
  const f = useFerry({ env: { FERRY_CONSOLE_ENABLED: 'false' } });

  it('serves nothing at /console/ with FERRY_CONSOLE_ENABLED=false, and the API answers as before', async () => {
    const res = await fetch(`${f.ferry.baseUrl}/console/`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-security-policy')).toBeNull();
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
    expect((await f.api.call('GET', '/requests')).status).toBe(200);
  });
});
