import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

/**
 * Debian's chromium, driven by playwright-core (which downloads no browser). `.ci/run`
 * installs the package as it installs PostgreSQL, best effort; without it the browser tests
 * report themselves skipped and say why. CAMROLL_TEST_CHROMIUM names another binary.
 */
export const CHROMIUM = process.env.CAMROLL_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const NO_CHROMIUM_REASON = `(skipped: no chromium at ${CHROMIUM}; apt-get install chromium, or set CAMROLL_TEST_CHROMIUM)`;

/**
 * Headless, and quiet on the network: no first-run, sync, component update or background
 * traffic of its own, so a request seen by a test is the page's. playwright gives every launch
 * a fresh --user-data-dir of its own.
 */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

/** A page opened from a file, with what it said and asked for while it loaded and drew. */
export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Every request other than the page's own file (each also aborted). */
  requests: string[];
  /** Time from navigation to the page's `data-drawn` mark, in ms. */
  drawnMs: number;
}

/** Opens `file` in a new context (its own time zone, colour scheme, size) and waits until the page has drawn. */
export async function openReport(
  browser: Browser,
  file: string,
  options: BrowserContextOptions = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const url = `file://${file}`;
  const requests: string[] = [];
  const errors: string[] = [];
  // Every request is counted and refused, whatever its scheme, except the page itself.
  await context.route('**/*', (route) => {
    if (route.request().url() === url) return route.continue();
    requests.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  page.on('request', (request) => {
    if (request.url() !== url && !requests.includes(request.url())) requests.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  const started = Date.now();
  await page.goto(url);
  await page.waitForSelector('html[data-drawn]', { timeout: 30_000 });
  return { context, page, errors, requests, drawnMs: Date.now() - started };
}
