import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { escapeHtml, openHtmlReport, renderHtmlReport, scriptJson } from '../../../src/cli/output/html-report.js';
import { buildHistory } from '../../../src/report/history.js';
import { createLibraryAggregator } from '../../../src/report/library.js';
import type { Report } from '../../../src/report/report.js';
import { runCli, useTempHome } from '../helpers/run-cli.js';

const LIBRARY = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'library');

let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

const HOSTILE = '</script><script>alert(1)</script><img src=x onerror=alert(2)>';

function hostileReport(): Report {
  const library = createLibraryAggregator();
  library.add({
    type: 'record',
    record: {
      path: `${HOSTILE}.jpg`,
      absPath: '/x',
      size: 1,
      mtimeMs: 0,
      media: null,
      source: null,
      error: { code: 'corrupt_file', message: HOSTILE },
      cached: false,
    },
  });
  const venue = { id: 1, name: HOSTILE, latitude: 10, longitude: 20 };
  return {
    subject: HOSTILE,
    generated_at: '2024-01-01T00:00:00Z',
    library: library.result(),
    sync: null,
    history: buildHistory('u', [{ id: 1, name: HOSTILE, starts_at_local: '2024-01-01T20:00:00', venue }], null),
  };
}

describe('renderHtmlReport', () => {
  it('escapes every text from the library and the service: no markup of theirs reaches the page', () => {
    const html = renderHtmlReport(hostileReport());
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain(escapeHtml(HOSTILE));
    // Two scripts: the data (JSON) and the page's own module.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
  });

  it('fetches nothing: a policy of default-src none, no external URL in any src or href', () => {
    const html = renderHtmlReport(hostileReport());
    expect(html).toContain(`content="default-src 'none';`);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(\s*["']?https?:/i);
  });

  it('tables odd dates over centuries by year: 600 distinct months make 50 rows, not 600', () => {
    const library = createLibraryAggregator();
    for (let i = 0; i < 600; i += 1) {
      const month = `${String(1500 + Math.floor(i / 12) * 7).padStart(4, '0')}-${String((i % 12) + 1).padStart(2, '0')}`;
      library.add({
        type: 'record',
        record: {
          path: `${i}.jpg`,
          absPath: '/x',
          size: 1,
          mtimeMs: 0,
          media: {
            id: `sha256:${i}`,
            taken_at: `${month}-01T00:00:00Z`,
            latitude: null,
            longitude: null,
            media_type: 'photo',
            filename: `${i}.jpg`,
            duration_seconds: null,
            device_make: null,
            device_model: null,
            device_lens_model: null,
          },
          source: { taken_at: 'exif_offset', coordinates: null },
          error: null,
          cached: false,
        },
      });
    }
    const html = renderHtmlReport({
      subject: 's',
      generated_at: '2024-01-01T00:00:00Z',
      library: library.result(),
      sync: null,
      history: null,
    });
    const table = html.slice(html.indexOf('<summary>The years as a table'));
    expect(table.slice(0, table.indexOf('</table>')).match(/<tr><th scope="row">/g)).toHaveLength(50);
  });

  it('keeps the data JSON inside its element', () => {
    expect(scriptJson({ a: '</script>\u2028' })).toBe('{"a":"\\u003c/script>\\u2028"}');
  });
});

describe('openHtmlReport', () => {
  it('writes the page with mode 0600, also over a file that was readable by others', async () => {
    const file = join(home.home, 'report.html');
    writeFileSync(file, 'old');
    chmodSync(file, 0o644);
    const report = await openHtmlReport(file);
    await report.write({ subject: 'scan of x' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const html = readFileSync(file, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<path class="land" d="M');
  });
});

describe('--html on the commands', () => {
  it.each(['scan', 'sync', 'events', 'stats'])(
    '%s --help says the file holds paths and coordinates',
    async (command) => {
      const result = await runCli([command, '--help']);
      expect(result.stdout.replace(/\s+/g, ' ')).toContain(
        '--html <file> write a self-contained HTML report to FILE (mode 0600: it holds the paths and coordinates',
      );
    },
  );

  it('sync --html writes the library and the history, mode 0600; events --html and stats --html the history', async () => {
    const file = join(home.home, 'sync.html');
    const result = await runCli(['sync', LIBRARY, '--email', 'html@example.com', '--json', '--html', file]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as { user_id: string; sent: number; matched: number; events: unknown[] };
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain(`<span class="value" data-count="sent">${summary.sent}</span>`);
    expect(html).toContain(`<span class="value" data-count="matched">${summary.matched}</span>`);
    expect(html).toContain(`<span data-count="events">${summary.events.length}</span>`);

    for (const command of ['events', 'stats']) {
      const userFile = join(home.home, `${command}.html`);
      const user = await runCli([command, '--user', summary.user_id, '--html', userFile]);
      expect(user.code).toBe(0);
      expect(statSync(userFile).mode & 0o777).toBe(0o600);
      const page = readFileSync(userFile, 'utf8');
      expect(page).toContain(`<span data-count="events">${summary.events.length}</span>`);
      expect(page).not.toContain('id="library"');
    }
  });

  it('scan --html of an empty folder: a whole page of zeros, no notice, exit 0', async () => {
    const empty = join(home.home, 'empty');
    mkdirSync(empty);
    const file = join(home.home, 'empty.html');
    const result = await runCli(['scan', empty, '--html', file]);
    expect(result.code, result.stderr).toBe(0);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('<span class="value" data-count="files">0</span>');
    expect(html).not.toContain('id="notice"');
    expect(html).not.toMatch(/>\s*(NaN|undefined|Infinity)\s*</);
  });

  it('sync --dry-run --html: the library and what a real run would send, no history', async () => {
    const file = join(home.home, 'dry.html');
    const result = await runCli(['sync', LIBRARY, '--dry-run', '--json', '--html', file]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as { sent: number; files: number };
    const html = readFileSync(file, 'utf8');
    expect(html).toContain(`<span class="value" data-count="files">${summary.files}</span>`);
    expect(html).toContain(
      `<span class="value" data-count="sent">${summary.sent}</span><span class="label">would be sent`,
    );
    expect(html).not.toContain('id="history"');
  });

  it('sync --dry-run --html of an export with a part missing: the page says a real run would not call sync-complete', async () => {
    const gap = join(LIBRARY, '..', 'exports', 'takeout-gap');
    const file = join(home.home, 'dry-gap.html');
    const parts = ['001', '003'].map((n) => join(gap, `takeout-20250101T000000Z-${n}.zip`));
    const result = await runCli(['sync', ...parts, '--dry-run', '--json', '--html', file]);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { not_examined?: string };
    expect(summary.not_examined).toContain('part 002 missing');
    const html = readFileSync(file, 'utf8');
    expect(html).toContain(`A real run would not call sync-complete: ${escapeHtml(summary.not_examined!)}.`);
  });

  it('sync --html against a host that refuses: the page says the sync ended before its result, and why', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const file = join(home.home, 'ended.html');
    const result = await runCli(
      [
        'sync',
        LIBRARY,
        '--email',
        'html@example.com',
        '--base-url',
        `http://127.0.0.1:${port}/v1`,
        '--retries',
        '0',
        '--html',
        file,
      ],
      { env: { CAMROLL_API_KEY: 'sk_test_html_report_key_1' } },
    );
    expect(result.code).toBe(1);
    const html = readFileSync(file, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toMatch(
      /<p class="notice" id="notice" role="note">The sync ended before its result: [^<]*ECONNREFUSED/,
    );
    expect(html).not.toContain('id="history"');
    expect(html).not.toContain('sk_test_html_report_key_1');
  });

  it('a file that cannot be written stops the scan at once with a usage error', async () => {
    const result = await runCli(['scan', LIBRARY, '--html', join(home.home, 'no', 'such', 'dir', 'r.html')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot write the HTML report');
  });
});
