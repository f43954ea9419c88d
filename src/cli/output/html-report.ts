import { once } from 'node:events';
import { readFileSync, type WriteStream } from 'node:fs';
import { OutputError } from '../../errors.js';
import type { ApiClient } from '../../client/index.js';
import type { Event } from '../../contract/index.js';
import type { DryRunResult, SyncResult } from '../../sync/session.js';
import {
  buildHistory,
  createLibraryAggregator,
  syncFigures,
  type HistoryReport,
  type LibraryReport,
  type Report,
  type SyncFigures,
} from '../../report/report.js';
import type { ScanEvent, ScanRecord } from '../../scan/index.js';
import { describeFsError } from '../../util/fs-error.js';
import { landPath, MAP_HEIGHT, MAP_WIDTH } from './html-land.js';
import { openPrivateStream } from './lines.js';
import { failedBatchesHint } from './sync-result.js';

/**
 * `--html FILE`: the report as one self-contained page. The data model comes from
 * src/report; this module only presents it: the counts and tables as HTML (readable without
 * script, printable), the land pre-projected to one SVG path, and the page's small script
 * (assets/html-report/page.js) drawing the histogram, the map's marks and the timeline from
 * the data in the page. A Content-Security-Policy of `default-src 'none'` makes sure the page
 * fetches nothing.
 */

const ASSETS = new URL('../../../assets/html-report/', import.meta.url);
let assets: { css: string; js: string } | null = null;
function pageAssets(): { css: string; js: string } {
  assets ??= {
    css: readFileSync(new URL('page.css', ASSETS), 'utf8'),
    js: readFileSync(new URL('page.js', ASSETS), 'utf8'),
  };
  return assets;
}

/** Text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON for a `<script type="application/json">`: nothing in it can close the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const n = (value: number): string => value.toLocaleString('en-US');
const pct = (part: number, whole: number): string => (whole === 0 ? '–' : `${Math.round((part / whole) * 100)}%`);

function card(key: string, label: string, value: number, detail = ''): string {
  return (
    `<div class="card"><span class="value" data-count="${escapeHtml(key)}">${n(value)}</span>` +
    `<span class="label">${escapeHtml(label)}</span>${detail ? `<br><span class="note">${escapeHtml(detail)}</span>` : ''}</div>`
  );
}

/** A share as a hatched bar (readable without colour) and its value in text. */
function share(part: number, whole: number): string {
  const width = whole === 0 ? 0 : Math.round((part / whole) * 100);
  return `<span class="share" aria-hidden="true"><span style="width:${width}%"></span></span>${n(part)} (${pct(part, whole)})`;
}

function countsTable(
  caption: string,
  counts: Record<string, number>,
  keyAttr: string,
  labels: Record<string, string> = {},
): string {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  if (rows.length === 0) return '';
  return (
    `<table><caption>${escapeHtml(caption)}</caption><thead><tr><th scope="col">what</th><th scope="col" class="num">files</th></tr></thead><tbody>` +
    rows
      .map(
        ([key, count]) =>
          `<tr><th scope="row"><code>${escapeHtml(key)}</code>${labels[key] ? ` <span class="note">${escapeHtml(labels[key])}</span>` : ''}</th>` +
          `<td class="num" data-${keyAttr}="${escapeHtml(key)}">${n(count)}</td></tr>`,
      )
      .join('') +
    '</tbody></table>'
  );
}

function librarySection(library: LibraryReport, sync: SyncFigures | null): string {
  const s = library.summary;
  const cards = [
    card('files', 'files found', s.files, `${n(s.photos)} photos, ${n(s.videos)} videos`),
    card('media', 'with metadata', s.media),
  ];
  if (sync) {
    const rejected = Object.values(sync.rejected).reduce((a, b) => a + b, 0);
    cards.push(
      card(
        'sent',
        sync.dry_run ? 'would be sent' : 'sent',
        sync.sent,
        `${n(sync.skipped_already_sent)} already sent before`,
      ),
      card('accepted', sync.dry_run ? 'would be accepted' : 'accepted', sync.accepted, `${n(rejected)} rejected`),
    );
    if (!sync.dry_run) cards.push(card('matched', 'matched to an event', sync.matched));
  }
  cards.push(
    card('damaged', 'damaged', s.damaged, 'read, but the content cannot be used'),
    card('unreadable', 'unreadable', s.unreadable, 'the bytes could not be read'),
    card('duplicates', 'duplicates', s.duplicates.files, `${n(s.duplicates.distinct_ids)} distinct contents`),
    card('with_time', 'with a capture time', library.with_time, pct(library.with_time, s.media)),
    card('with_place', 'with a place', library.with_place, pct(library.with_place, s.media)),
    card('with_both', 'with a place and a time', library.with_both, pct(library.with_both, s.media)),
  );
  const classes = library.classes ? countsTable('Left out or collapsed, by origin', library.classes, 'class') : '';
  const skipped = countsTable('Left out on purpose (not media)', s.skipped, 'skipped');
  const devices =
    library.devices.length === 0
      ? '<p class="empty">No media.</p>'
      : `<table><caption>By device: the share with a place and a time</caption><thead><tr><th scope="col">device</th>` +
        `<th scope="col" class="num">files</th><th scope="col">with a place</th><th scope="col">with a time</th>` +
        `<th scope="col">with both</th></tr></thead><tbody>` +
        library.devices
          .map(
            (d) =>
              `<tr><th scope="row">${escapeHtml(d.device)}</th><td class="num">${n(d.files)}</td>` +
              `<td>${share(d.with_place, d.files)}</td><td>${share(d.with_time, d.files)}</td><td>${share(d.with_both, d.files)}</td></tr>`,
          )
          .join('') +
        '</tbody></table>';
  return (
    `<section id="library" aria-labelledby="h-library"><h2 id="h-library">Library</h2>` +
    `<div class="cards">${cards.join('')}</div>${classes}${skipped}${devices}</section>`
  );
}

/** Months past this many are tabled (and drawn) by year: a library of odd dates stays a short table. */
const MAX_MONTH_ROWS = 480;

/** The months as rows, or the years when there are too many months to list. */
function timeRows(library: LibraryReport): { unit: 'month' | 'year'; rows: LibraryReport['months'] } {
  if (library.months.length <= MAX_MONTH_ROWS) return { unit: 'month', rows: library.months };
  const years = new Map<string, LibraryReport['months'][number]>();
  for (const m of library.months) {
    const year = m.month.slice(0, 4);
    const row = years.get(year) ?? { month: year, with_place: 0, without_place: 0 };
    row.with_place += m.with_place;
    row.without_place += m.without_place;
    years.set(year, row);
  }
  return { unit: 'year', rows: [...years.values()] };
}

function whenSection(library: LibraryReport): string {
  const { unit, rows: timeTable } = timeRows(library);
  const rows = timeTable
    .map(
      (m) =>
        `<tr><th scope="row">${m.month}</th><td class="num">${n(m.with_place)}</td><td class="num">${n(m.without_place)}</td></tr>`,
    )
    .join('');
  return (
    `<section id="when" aria-labelledby="h-when"><h2 id="h-when">When</h2>` +
    `<p>Capture times by month (UTC), of the ${n(library.with_time)} files with a time.</p>` +
    `<ul class="legend"><li><svg viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" class="bar-place"/></svg>with a place</li>` +
    `<li><svg viewBox="0 0 10 10" aria-hidden="true"><use href="#hatch-swatch"/></svg>without a place (hatched)</li></ul>` +
    `<figure><svg id="histogram" role="img" aria-labelledby="histogram-title" viewBox="0 0 960 220">` +
    `<title id="histogram-title">Files with a capture time by month, with and without a place</title>` +
    `<defs><pattern id="hatch" patternUnits="userSpaceOnUse" width="4" height="4" patternTransform="rotate(45)">` +
    `<line class="hatch-line" x1="0" y1="0" x2="0" y2="4"/></pattern>` +
    `<symbol id="hatch-swatch" viewBox="0 0 10 10"><rect width="10" height="10" class="bar-noplace"/></symbol></defs></svg>` +
    `<figcaption id="histogram-caption"></figcaption></figure>` +
    (library.months.length === 0
      ? '<p class="empty">No file has a capture time.</p>'
      : `<details><summary>The ${unit}s as a table</summary><table><thead><tr><th scope="col">${unit}</th>` +
        `<th scope="col" class="num">with a place</th><th scope="col" class="num">without a place</th></tr></thead><tbody>${rows}</tbody></table></details>`) +
    '</section>'
  );
}

function whereSection(library: LibraryReport | null, history: HistoryReport | null): string {
  const cells = library?.cells;
  const places = library?.with_place ?? 0;
  const venues = history?.venues.length ?? 0;
  const what = [
    library ? `${n(places)} files with a place, in ${n(cells?.cells.length ?? 0)} cells of ${cells?.size_deg}°` : null,
    history ? `${n(venues)} venues of matched events` : null,
  ]
    .filter(Boolean)
    .join('; ');
  return (
    `<section id="where" aria-labelledby="h-where"><h2 id="h-where">Where</h2><p>${escapeHtml(what)}.</p>` +
    `<ul class="legend"><li><svg viewBox="0 0 10 10" aria-hidden="true"><circle cx="5" cy="5" r="4" class="cell"/></svg>photos (a circle per cell, its area by the count)</li>` +
    (history
      ? `<li><svg viewBox="0 0 10 10" aria-hidden="true"><path d="M5 0.5 9.5 9.5H0.5Z" class="venue"/></svg>venue of a matched event (triangle)</li>`
      : '') +
    `</ul><div class="controls no-print"><button type="button" id="zoom-in">Zoom in</button><button type="button" id="zoom-out">Zoom out</button>` +
    `<button type="button" id="zoom-reset">Whole world</button><span class="note" id="map-hint">Drag on the map to zoom into a region; ` +
    `with the map focused: arrow keys pan, + and − zoom, 0 shows the whole world.</span></div>` +
    `<figure><svg id="map" class="map" tabindex="0" role="img" aria-labelledby="map-title" aria-describedby="map-hint" ` +
    `viewBox="0 0 ${MAP_WIDTH} ${MAP_HEIGHT}" data-width="${MAP_WIDTH}" data-height="${MAP_HEIGHT}">` +
    `<title id="map-title">World map of the places of the photos${history ? ' and the venues of matched events' : ''}</title>` +
    `<path class="land" d="${landPath()}"/><g id="cells"></g><g id="venues"></g><rect class="selection" id="selection" hidden width="0" height="0"/></svg>` +
    `<figcaption>Land: Natural Earth 1:110m. <span id="map-caption"></span></figcaption></figure></section>`
  );
}

/** What each rule means, in a few words (the README's "How capture time is resolved"). */
const TAKEN_AT_RULES: Record<string, string> = {
  exif_offset: 'EXIF time with its offset',
  xmp: 'XMP date with an offset',
  video_creationdate: "the video's creation date with its offset",
  takeout: "Google Takeout's photoTakenTime",
  gps_time: 'local time placed by the GPS time',
  timezone_lookup: 'local time placed by the time zone at the coordinates',
  video_mvhd: "the video's creation time (UTC)",
  icloud_csv: "iCloud's Photo Details.csv",
  none: 'no capture time',
};
const PLACE_RULES: Record<string, string> = {
  takeout: 'Google Takeout JSON',
  xmp: 'XMP GPS',
  exif_gps: 'EXIF GPS',
  video_iso6709: "the video's ISO 6709 location",
  video_loci: "the video's loci box",
  none: 'no place',
};

function howSection(library: LibraryReport): string {
  return (
    `<section id="how" aria-labelledby="h-how"><h2 id="h-how">How</h2>` +
    `<p>The rule that gave each file its capture time (<code>source.taken_at</code>) and its place (<code>source.coordinates</code>).</p>` +
    countsTable('Capture time: source.taken_at', library.rules.taken_at, 'taken-at', TAKEN_AT_RULES) +
    countsTable('Place: source.coordinates', library.rules.coordinates, 'coordinates', PLACE_RULES) +
    '</section>'
  );
}

const STAT_LABELS: [string, string][] = [
  ['total_events', 'events'],
  ['total_venues', 'venues'],
  ['concerts_count', 'concerts'],
  ['sports_count', 'sports events'],
  ['first_attended', 'first attended'],
  ['most_recently_attended', 'most recently attended'],
  ['busiest_year', 'busiest year'],
  ['top_season', 'top season'],
  ['top_artist', 'top artist'],
  ['top_genre', 'top genre'],
  ['top_team', 'top team'],
  ['top_league', 'top league'],
  ['has_synced', 'has synced'],
  ['last_sync_at', 'last sync'],
];

function historySection(history: HistoryReport): string {
  const rows = [...history.events]
    .reverse()
    .map(
      (e) =>
        `<tr><td>${escapeHtml(e.starts_at_local.slice(0, 16).replace('T', ' '))}</td><th scope="row">${escapeHtml(e.name)}</th>` +
        `<td>${escapeHtml(e.venue ?? '–')}</td><td>${escapeHtml([e.city, e.country].filter(Boolean).join(', ') || '–')}</td>` +
        `<td class="num" data-media-count>${n(e.media_count)}</td></tr>`,
    )
    .join('');
  const stats = history.stats;
  const statRows = stats
    ? STAT_LABELS.map(([key, label]) => {
        const value = (stats as unknown as Record<string, unknown>)[key];
        return `<dt>${escapeHtml(label)}</dt><dd data-stat="${key}">${escapeHtml(value === null || value === undefined ? '–' : String(value))}</dd>`;
      }).join('')
    : '';
  const venues = stats?.unique_venues ?? [];
  return (
    `<section id="history" aria-labelledby="h-history"><h2 id="h-history">History</h2>` +
    `<p>User <code>${escapeHtml(history.user_id)}</code>: <span data-count="events">${n(history.events.length)}</span> matched events.</p>` +
    `<figure><svg id="timeline" role="img" aria-labelledby="timeline-title" viewBox="0 0 960 90"><title id="timeline-title">Matched events on a timeline (local dates at the venue)</title></svg></figure>` +
    (history.events.length === 0
      ? '<p class="empty">No matched events.</p>'
      : `<table id="events"><caption>Matched events, newest first (local time at the venue)</caption><thead><tr><th scope="col">date</th><th scope="col">event</th>` +
        `<th scope="col">venue</th><th scope="col">where</th><th scope="col" class="num">media</th></tr></thead><tbody>${rows}</tbody></table>`) +
    (stats ? `<h3>Stats from the service</h3><dl class="stats">${statRows}</dl>` : '') +
    (venues.length > 0
      ? `<table><caption>Venues</caption><thead><tr><th scope="col">venue</th><th scope="col" class="num">visits</th></tr></thead><tbody>` +
        venues
          .map(
            (v) => `<tr><th scope="row">${escapeHtml(v.venue.name)}</th><td class="num">${n(v.visit_count)}</td></tr>`,
          )
          .join('') +
        '</tbody></table>'
      : '') +
    '</section>'
  );
}

function problemsSection(library: LibraryReport): string {
  const { rows, more } = library.problems;
  const body = rows
    .map(
      (p) =>
        `<tr><td class="path">${escapeHtml(p.path)}</td><td>${p.kind}</td><td><code>${escapeHtml(p.code)}</code></td><td>${escapeHtml(p.message)}</td></tr>`,
    )
    .join('');
  return (
    `<section id="problems" aria-labelledby="h-problems"><h2 id="h-problems">Problems</h2>` +
    (rows.length === 0
      ? '<p class="empty">No file had an error or a warning.</p>'
      : `<div class="controls no-print"><label for="problem-search">Search</label><input type="search" id="problem-search" placeholder="path, code or message">` +
        `<span id="problem-shown" role="status" aria-live="polite"></span></div>` +
        `<table id="problem-table"><caption>Every file with an error or a warning</caption><thead><tr><th scope="col">path</th><th scope="col">kind</th>` +
        `<th scope="col">code</th><th scope="col">message</th></tr></thead><tbody>${body}</tbody></table>`) +
    (more > 0
      ? `<p data-count="more-problems">${n(more)} more not listed here (the --report file lists them all).</p>`
      : '') +
    '</section>'
  );
}

/** The data the page's script draws (compact arrays: a large library stays light). */
function pageData(report: Report): unknown {
  return {
    months: report.library?.months.map((m) => [m.month, m.with_place, m.without_place]) ?? [],
    cellSize: report.library?.cells.size_deg ?? null,
    cells: report.library?.cells.cells.map((c) => [c.lat, c.lon, c.count]) ?? [],
    venues: report.history?.venues.map((v) => [v.latitude, v.longitude, v.name, v.events]) ?? [],
    events: report.history?.events.map((e) => [e.starts_at_local, e.name, e.venue, e.media_count]) ?? [],
  };
}

/** The whole page. */
export function renderHtmlReport(report: Report): string {
  const { css, js } = pageAssets();
  const sections: [string, string, string][] = [];
  if (report.library) sections.push(['library', 'Library', librarySection(report.library, report.sync)]);
  if (report.library) sections.push(['when', 'When', whenSection(report.library)]);
  if (report.library || report.history) sections.push(['where', 'Where', whereSection(report.library, report.history)]);
  if (report.library) sections.push(['how', 'How', howSection(report.library)]);
  if (report.history) sections.push(['history', 'History', historySection(report.history)]);
  if (report.library) sections.push(['problems', 'Problems', problemsSection(report.library)]);
  const nav = sections.map(([id, label]) => `<li><a href="#${id}">${label}</a></li>`).join('');
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">' +
    `<title>camroll report: ${escapeHtml(report.subject)}</title><style>${css}</style></head><body>` +
    `<a class="skip" href="#main">Skip to the report</a><header><h1>camroll report</h1>` +
    `<p class="meta">${escapeHtml(report.subject)} · made ${escapeHtml(report.generated_at)} · ` +
    'this file holds paths and coordinates of your files: keep it private</p>' +
    (report.notice ? `<p class="notice" id="notice" role="note">${escapeHtml(report.notice)}</p>` : '') +
    `<nav aria-label="Sections"><ul>${nav}</ul></nav></header><main id="main">${sections.map((s) => s[2]).join('')}</main>` +
    `<script type="application/json" id="report-data">${scriptJson(pageData(report))}</script>` +
    `<script type="module">${js}</script></body></html>\n`
  );
}

/** Writes the page to `file` (mode 0600, also when it existed). A failure is `report_write_failed`. */
export async function writeHtmlReport(file: string, report: Report): Promise<void> {
  const html = renderHtmlReport(report);
  await endStream(await openPrivateStream(file, 'w', 'HTML report'), file, html);
}

async function endStream(stream: WriteStream, file: string, html: string): Promise<void> {
  try {
    stream.end(html);
    await once(stream, 'finish');
  } catch (error) {
    throw new OutputError(
      'report_write_failed',
      `cannot write the HTML report ${file}: ${describeFsError(error as NodeJS.ErrnoException)}`,
      { cause: error },
    );
  } finally {
    stream.destroy();
  }
}

/** `--html FILE` of a command: opened (and created 0600) before the work starts, written once at the end. */
export interface HtmlReportFile {
  /** One scan event into the library picture. */
  add(event: ScanEvent): void;
  addAll(events: readonly ScanEvent[]): void;
  /** Renders and writes the page; `library: false` leaves the library out (a command that scanned nothing). */
  /** The page of a sync: its counts beside the library and, after a real pass that read them, the user's history. */
  writeSync(result: SyncResult | DryRunResult): Promise<void>;
  write(parts: {
    subject: string;
    library?: boolean;
    sync?: SyncFigures | null;
    history?: HistoryReport | null;
    notice?: string | null;
  }): Promise<void>;
  /** The page of a sync that ended before its result (`reason`): the library read until then. */
  writeEnded(reason: string): Promise<void>;
}

/** Opens `file` for a report (a path that cannot be written is a usage error now, not after the scan). */
export async function openHtmlReport(file: string, pathOf?: (record: ScanRecord) => string): Promise<HtmlReportFile> {
  const stream = await openPrivateStream(file, 'w', 'HTML report');
  const library = createLibraryAggregator();
  const page: HtmlReportFile = {
    writeSync: (result) => page.write(syncParts(result)),
    writeEnded: (reason) =>
      page.write({
        subject: 'sync that ended before its result',
        notice: `The sync ended before its result: ${reason}. The library below is what was read until then; nothing here says what the service accepted.`,
      }),
    // A record is listed under the path the rest of the output shows it by (`pathOf`).
    add: (event) =>
      library.add(
        pathOf === undefined || event.type !== 'record'
          ? event
          : { type: 'record', record: { ...event.record, path: pathOf(event.record) } },
      ),
    addAll: (events) => {
      for (const event of events) library.add(event);
    },
    async write(parts) {
      const html = renderHtmlReport({
        subject: parts.subject,
        generated_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        library: parts.library === false ? null : library.result(),
        sync: parts.sync ?? null,
        history: parts.history ?? null,
        notice: parts.notice ?? null,
      });
      await endStream(stream, file, html);
    },
  };
  return page;
}

/** What `sync --html` shows beside the library: the sync's counts and, after a real pass, the user's history. */
function syncParts(result: SyncResult | DryRunResult): Parameters<HtmlReportFile['write']>[0] {
  const notice = outcomeNotice(result);
  if (result.dry_run) return { subject: 'sync dry run (nothing was sent)', sync: syncFigures(result), notice };
  return {
    subject: `sync for user ${result.user_id}`,
    sync: syncFigures(result),
    history: result.stats === null ? null : buildHistory(result.user_id, result.events, result.stats),
    notice,
  };
}

/** What a sync that did not end `ok` leaves the page's figures meaning. */
function outcomeNotice(result: SyncResult | DryRunResult): string | null {
  switch (result.outcome) {
    case 'ok':
      // A dry run that read everything may still find what would keep a real run from calling sync-complete.
      return result.dry_run && result.not_examined !== undefined
        ? `A real run would not call sync-complete: ${result.not_examined}.`
        : null;
    case 'interrupted':
      return 'The sync was interrupted: the figures are of what it did before it stopped; the same command resumes it.';
    case 'outage':
      return 'The service stopped answering during the sync: the figures are of what it did until then; the next run sends the rest.';
    case 'failed':
      return `The sync did not finish: ${failedBatchesHint(result)}.`;
    case 'not_examined': {
      const why = ('not_examined' in result ? result.not_examined : undefined) ?? 'the library was not read whole';
      return `sync-complete was not called: ${why}.`;
    }
  }
}

/**
 * `events --html` and `stats --html`: the user's history (every event, followed to the last
 * page without media, and the stats) as a page of its own.
 */
export async function writeUserHtml(
  file: string,
  client: Pick<ApiClient, 'allEvents' | 'stats'>,
  userId: string,
  signal: AbortSignal,
): Promise<void> {
  const page = await openHtmlReport(file);
  const stats = await client.stats(userId, { signal });
  const events: Event[] = [];
  for await (const event of client.allEvents(userId, { includeMedia: false, limit: 100, signal })) events.push(event);
  await page.write({ subject: `user ${userId}`, library: false, history: buildHistory(userId, events, stats) });
}
