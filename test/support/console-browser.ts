/**
 * A real browser on the web console: Debian's chromium (installed by test/infra/browser.sh) driven by
 * playwright-core, one browser per test file, one fresh context (no storage carried over) per `openConsole`.
 * Every page is watched for script errors and Content-Security-Policy violations: `problems()` lists them, and
 * tests expect it empty.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.FERRY_TEST_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Where tests save their screenshots; `npm run console:screenshots` copies the README's from here.
 * Set FERRY_TEST_SCREENSHOTS to keep them elsewhere.
 */
export const SCREENSHOT_DIR = process.env.FERRY_TEST_SCREENSHOTS ?? join(tmpdir(), 'ferry-console-screenshots');

export const DESKTOP = { width: 1280, height: 800 } as const;
export const NARROW = { width: 390, height: 844 } as const;

export interface ConsolePage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Script errors, failed asset loads and policy violations seen so far on this page. */
  problems(): string[];
  /** Saves a screenshot of the whole page as `<name>.png` under SCREENSHOT_DIR; returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface OpenOptions {
  viewport?: { width: number; height: number };
  /** The browser's time zone; UTC unless given. */
  timezoneId?: string;
  /** How far the browser's clock runs from the machine's (negative: behind), as when a device's clock is off. */
  clockOffsetMs?: number;
  /** The place to open; the requests list unless given (`''` for the front page, the overview). */
  hash?: string;
}

export interface ConsoleBrowser {
  /** Opens the console of the server at `baseUrl` in a fresh context. */
  openConsole(baseUrl: string, options?: OpenOptions): Promise<ConsolePage>;
}

/** One chromium for the enclosing test file, closed after it. */
export function useConsoleBrowser(): ConsoleBrowser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async openConsole(baseUrl, options = {}) {
      if (browser === undefined) throw new Error('the browser is not started: call openConsole inside a test');
      const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, locale: 'en-GB', timezoneId: options.timezoneId ?? 'UTC' });
      // The page's clock then starts at the shifted time and runs on at the real pace.
      if (options.clockOffsetMs !== undefined) await context.clock.install({ time: Date.now() + options.clockOffsetMs });
      const page = await context.newPage();
      const seen: string[] = [];
      page.on('pageerror', (err) => seen.push(`page error: ${err.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') seen.push(`console error: ${message.text()}`);
      });
      page.on('response', (response) => {
        const url = new URL(response.url());
        if (url.pathname.startsWith('/console/') && response.status() >= 400) seen.push(`asset ${url.pathname} answered ${response.status()}`);
      });
      await page.goto(`${baseUrl}/console/${options.hash ?? '#/requests'}`);
      return {
        page,
        context,
        problems: () => [...seen],
        async screenshot(name) {
          mkdirSync(SCREENSHOT_DIR, { recursive: true });
          const path = join(SCREENSHOT_DIR, `${name}.png`);
          await page.screenshot({ path, fullPage: true });
          return path;
        },
        close: () => context.close(),
      };
    },
  };
}

/** Signs in with `apiKey` and waits for the requests page. */
export async function signIn(page: Page, apiKey: string): Promise<void> {
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Sections' }).waitFor();
}
