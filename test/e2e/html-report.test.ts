import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCamroll, tempHome } from './helpers/camroll.js';
import { HAS_CHROMIUM, launchChromium, NO_CHROMIUM_REASON, openReport, type OpenedPage } from './helpers/browser.js';

// The --html report as a user sees it: the real binary writes it from the fixture library and
// from exports, one headless Chromium (Debian's, through playwright-core) opens it offline.
const LIBRARY = join(ROOT, 'fixtures', 'library');
const ARCHIVES = join(ROOT, 'fixtures', 'archives');
const TAKEOUT = [join(ARCHIVES, 'takeout-001.zip'), join(ARCHIVES, 'takeout-002.zip')];
const ICLOUD = [join(ARCHIVES, 'iCloud Photos Part 1 of 2.zip'), join(ARCHIVES, 'iCloud Photos Part 2 of 2.zip')];

interface JsonlLine {
  path: string;
  media?: { taken_at: string | null; latitude: number | null; longitude: number | null };
  error?: { code: string };
}

interface Written {
  file: string;
  summary: Record<string, unknown> & { files: number; media: number; damaged: number; unreadable: number };
  lines: JsonlLine[];
}

let browser: Browser;
let home: ReturnType<typeof tempHome>;
let out: string;

/** Runs `scan ARGS --html` and `--json`, and `--jsonl` for the per-file truth the page is checked against. */
async function scanReport(name: string, args: string[]): Promise<Written> {
  const file = join(out, `${name}.html`);
  const json = await runCamroll(['scan', ...args, '--html', file, '--json'], { env: home.env });
  expect(json.stderr).not.toContain('internal_error');
  const jsonl = await runCamroll(['scan', ...args, '--jsonl'], { env: home.env });
  return {
    file,
    summary: JSON.parse(json.stdout) as Written['summary'],
    lines: jsonl.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as JsonlLine),
  };
}

const count = async (page: Page, key: string): Promise<number> =>
  Number((await page.locator(`[data-count="${key}"]`).first().textContent())!.replace(/,/g, ''));

/** Bars of the histogram, as label -> [with place, without]. */
const bars = (page: Page): Promise<[string, number, number][]> =>
  page.$$eval('#histogram g.bar', (gs) =>
    gs.map((g): [string, number, number] => [
      g.getAttribute('data-bin')!,
      Number(g.getAttribute('data-with-place')),
      Number(g.getAttribute('data-without-place')),
    ]),
  );

/** What every report must show of the library it was made from. */
async function checkLibraryPage(opened: OpenedPage, written: Written): Promise<void> {
  const { page } = opened;
  expect(opened.errors).toEqual([]);
  expect(opened.requests).toEqual([]);
  const { summary, lines } = written;
  expect(await count(page, 'files')).toBe(summary.files);
  expect(await count(page, 'media')).toBe(summary.media);
  expect(await count(page, 'damaged')).toBe(summary.damaged);
  expect(await count(page, 'unreadable')).toBe(summary.unreadable);
  expect(await count(page, 'duplicates')).toBe((summary.duplicates as { files: number }).files);
  // The files left out or collapsed, class by class, as the summary's `left_out` counts them.
  const leftOut = (summary.left_out ?? {}) as Record<string, { files: number }>;
  const classCells = await page.$$eval('td[data-class]', (tds) =>
    tds.map((td) => [td.getAttribute('data-class'), Number(td.textContent!.replace(/\D/g, ''))] as const),
  );
  expect(Object.fromEntries(classCells)).toEqual(
    Object.fromEntries(Object.entries(leftOut).map(([origin, counted]) => [origin, counted.files])),
  );

  const media = lines.flatMap((line) => (line.media ? [line.media] : []));
  const timed = media.filter((m) => m.taken_at !== null);
  const placed = media.filter((m) => m.latitude !== null && m.longitude !== null);
  expect(await count(page, 'with_time')).toBe(timed.length);
  expect(await count(page, 'with_place')).toBe(placed.length);

  // The histogram's bars hold every file with a time, each in its UTC month.
  const histogram = await bars(page);
  expect(histogram.reduce((sum, [, a, b]) => sum + a + b, 0)).toBe(timed.length);
  const inMonth = (month: string): number => timed.filter((m) => m.taken_at!.startsWith(month)).length;
  for (const [month, a, b] of histogram) expect(a + b).toBe(inMonth(month));

  // One mark per place cell: the distinct cells of the grid the page says it used.
  const size = (JSON.parse((await page.locator('#report-data').textContent())!) as { cellSize: number }).cellSize;
  const cells = new Set(
    placed.map((m) => `${Math.floor(m.latitude! / size + 1e-9)},${Math.floor(m.longitude! / size + 1e-9)}`),
  );
  const marks = await page.$$eval('#map circle.cell', (cs) => cs.map((c) => Number(c.getAttribute('data-count'))));
  expect(marks).toHaveLength(cells.size);
  expect(marks.reduce((a, b) => a + b, 0)).toBe(placed.length);

  // Every file with an error is a row of the problems table, with its code.
  const rows = await page.$$eval('#problem-table tbody tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
  );
  const broken = lines.filter((line) => line.error);
  expect(broken.length).toBe(summary.damaged + summary.unreadable);
  for (const line of broken) expect(rows).toContainEqual([line.path, 'error', line.error!.code, expect.any(String)]);
}

describe.skipIf(!HAS_CHROMIUM)(
  HAS_CHROMIUM ? 'the --html report in a real browser' : `the --html report in a real browser ${NO_CHROMIUM_REASON}`,
  () => {
    beforeAll(async () => {
      home = tempHome('camroll-html-');
      out = mkdtempSync(join(tmpdir(), 'camroll-html-out-'));
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      rmSync(home.dir, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    });

    it('a scan of the fixture library: the counts of --json, the bars, a mark per cell, every damaged file', async () => {
      const written = await scanReport('library', [LIBRARY]);
      expect(written.summary.damaged).toBeGreaterThan(0);
      const opened = await openReport(browser, written.file);
      try {
        await checkLibraryPage(opened, written);
        // The problems are searchable: a code leaves only its rows.
        const { page } = opened;
        await page.locator('#problem-search').fill('empty_file');
        await expect.poll(() => page.locator('#problem-table tbody tr:not([hidden])').count()).toBe(1);
        expect(await page.locator('#problem-shown').textContent()).toMatch(/^1 of \d+ shown$/);
      } finally {
        await opened.context.close();
      }
    });

    it.each([
      ['takeout', TAKEOUT],
      ['icloud', ICLOUD],
    ])('a scan of the %s export reads the same on the page', async (name, parts) => {
      const written = await scanReport(name, parts);
      expect(written.summary.media).toBeGreaterThan(0);
      const opened = await openReport(browser, written.file);
      try {
        await checkLibraryPage(opened, written);
      } finally {
        await opened.context.close();
      }
    });

    it('a sync: its counts, the matched events on the timeline and in the table, a mark per venue; any time zone', async () => {
      const file = join(out, 'sync.html');
      const run = await runCamroll(['sync', LIBRARY, '--email', 'html-e2e@example.com', '--json', '--html', file], {
        env: home.env,
      });
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as {
        sent: number;
        accepted: number;
        matched: number;
        events: { starts_at_local: string; venue: { id: number; latitude: number | null } | null }[];
      };
      expect(result.events.length).toBeGreaterThan(0);
      const views: [string, number][][] = [];
      for (const timezoneId of ['UTC', 'Pacific/Kiritimati', 'America/Adak']) {
        const opened = await openReport(browser, file, { timezoneId });
        try {
          const { page } = opened;
          expect(opened.errors).toEqual([]);
          expect(opened.requests).toEqual([]);
          expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe(timezoneId);
          expect(await count(page, 'sent')).toBe(result.sent);
          expect(await count(page, 'accepted')).toBe(result.accepted);
          expect(await count(page, 'matched')).toBe(result.matched);
          expect(await count(page, 'events')).toBe(result.events.length);
          expect(await page.locator('#events tbody tr').count()).toBe(result.events.length);
          const dates = await page.$$eval('#timeline g.event', (gs) => gs.map((g) => g.getAttribute('data-date')));
          expect(dates).toEqual(result.events.map((e) => e.starts_at_local.slice(0, 10)).sort());
          const venues = new Set(result.events.filter((e) => e.venue?.latitude != null).map((e) => e.venue!.id));
          expect(await page.locator('#map path.venue').count()).toBe(venues.size);
          views.push((await bars(page)).map(([label, a, b]) => [label, a + b]));
          // The timeline's marks sit where they sit in UTC: the reader's zone moves nothing.
          views.push(
            (await page.$$eval('#timeline path.event-mark', (ps) => ps.map((p) => p.getAttribute('d')))).map((d) => [
              d!,
              0,
            ]),
          );
        } finally {
          await opened.context.close();
        }
      }
      expect(views[2]).toEqual(views[0]);
      expect(views[4]).toEqual(views[0]);
      expect(views[3]).toEqual(views[1]);
      expect(views[5]).toEqual(views[1]);
    });

    it('is usable by keyboard and prints: the map zooms and pans with keys, the search field takes focus', async () => {
      const file = join(out, 'keys.html');
      await runCamroll(['scan', LIBRARY, '--html', file], { env: home.env });
      const opened = await openReport(browser, file, { colorScheme: 'dark' });
      try {
        const { page } = opened;
        const viewBox = (): Promise<string | null> => page.locator('#map').getAttribute('viewBox');
        const whole = await viewBox();
        await page.locator('#map').focus();
        await page.keyboard.press('+');
        const zoomed = await viewBox();
        expect(zoomed).not.toBe(whole);
        await page.keyboard.press('ArrowLeft');
        expect(await viewBox()).not.toBe(zoomed);
        await page.keyboard.press('0');
        expect(await viewBox()).toBe(whole);
        // Zoom by selection: a rectangle dragged over Europe becomes the view.
        const box = (await page.locator('#map').boundingBox())!;
        const at = (lon: number, lat: number): [number, number] => [
          box.x + ((lon + 180) / 360) * box.width,
          box.y + ((90 - lat) / 180) * box.height,
        ];
        await page.mouse.move(...at(-10, 60));
        await page.mouse.down();
        await page.mouse.move(...at(10, 50), { steps: 4 });
        await page.mouse.move(...at(30, 40), { steps: 4 });
        await page.mouse.up();
        const [x, , w] = (await viewBox())!.split(' ').map(Number) as [number, number, number, number];
        expect(w).toBeLessThan(960 / 4);
        expect(x / (960 / 360) - 180).toBeGreaterThan(-20);
        expect(x / (960 / 360) - 180).toBeLessThan(0);
        expect(await page.locator('#map-caption').textContent()).toContain('zoomed to longitude');
        // Tab order reaches the search field.
        await page.locator('#problem-search').focus();
        await page.keyboard.type('skipped');
        await expect.poll(() => page.locator('#problem-table tbody tr:not([hidden])').count()).toBeGreaterThan(0);
        // Dark scheme: the page follows it.
        const bg = await page.evaluate('getComputedStyle(document.body).backgroundColor');
        expect(bg).toBe('rgb(21, 21, 21)');
        // Print: the controls go, hidden rows come back.
        await page.emulateMedia({ media: 'print' });
        expect(await page.locator('.controls').first().isVisible()).toBe(false);
        expect(await page.locator('#problem-table tbody tr[hidden]').first().isVisible()).toBe(true);
        expect(opened.errors).toEqual([]);
      } finally {
        await opened.context.close();
      }
    });
  },
);
