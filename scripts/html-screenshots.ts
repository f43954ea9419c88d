/**
 * The screenshots of the `--html` report in docs/html-report/ (README, docs/readme): the real
 * binary syncs the fixture library to the embedded service in a throwaway home and writes the
 * report, headless chromium (Debian's, through playwright-core) shows it at 1280×800 and each
 * section is captured, in the light scheme and the whole page once in the dark one.
 *
 * Run: npm run build && npm run screenshots:html
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, tempHome } from '../test/e2e/helpers/camroll.js';
import { HAS_CHROMIUM, launchChromium, NO_CHROMIUM_REASON, openReport } from '../test/e2e/helpers/browser.js';

const OUT = join(ROOT, 'docs', 'html-report');
/** Section (its element id) -> file: the first screen, then the map, the history and the problems. */
const SHOTS: [string | null, string][] = [
  [null, 'library.png'],
  ['where', 'where.png'],
  ['history', 'history.png'],
  ['problems', 'problems.png'],
];

async function main(): Promise<void> {
  if (!HAS_CHROMIUM) throw new Error(`no browser ${NO_CHROMIUM_REASON}`);
  const home = tempHome('camroll-shots-');
  const out = mkdtempSync(join(tmpdir(), 'camroll-shots-out-'));
  const file = join(out, 'report.html');
  execFileSync(
    process.execPath,
    [BIN, 'sync', join(ROOT, 'fixtures', 'library'), '--email', 'screenshots@example.com', '--html', file],
    { env: home.env, cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  mkdirSync(OUT, { recursive: true });
  const browser = await launchChromium();
  try {
    const light = await openReport(browser, file, { colorScheme: 'light', timezoneId: 'UTC' });
    for (const [section, name] of SHOTS) {
      if (section !== null) await light.page.evaluate(`document.getElementById('${section}').scrollIntoView()`);
      await light.page.screenshot({ path: join(OUT, name) });
      console.log(join('docs', 'html-report', name));
    }
    await light.context.close();
    const dark = await openReport(browser, file, { colorScheme: 'dark', timezoneId: 'UTC' });
    await dark.page.evaluate(`document.getElementById('when').scrollIntoView()`);
    await dark.page.screenshot({ path: join(OUT, 'dark.png') });
    console.log(join('docs', 'html-report', 'dark.png'));
    await dark.context.close();
  } finally {
    await browser.close();
    rmSync(home.dir, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}

await main();
