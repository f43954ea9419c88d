/**
 * `--html` benchmark (issue 30): 100,000 generated scan records streamed through the report's
 * aggregator, the page written as `scan --html` writes it, then opened in headless Chromium
 * (Debian's, through playwright-core) a few times: the file's size, the aggregation and write
 * times, and the time from navigation until the drawn page has been painted. Two libraries: places
 * clustered around a few hundred cities (a camera roll), and places scattered over the whole
 * world (the most cells the grid keeps).
 *
 * Run: npm run bench:html [-- --files N --rounds N]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeHtmlReport } from '../src/cli/output/html-report.js';
import type { Event } from '../src/contract/index.js';
import { buildHistory } from '../src/report/history.js';
import { createLibraryAggregator } from '../src/report/library.js';
import type { ScanEvent } from '../src/scan/types.js';
import { seededRandom } from '../src/util/seeded-random.js';
import { HAS_CHROMIUM, launchChromium, NO_CHROMIUM_REASON, openReport } from '../test/e2e/helpers/browser.js';

const { values } = parseArgs({
  options: { files: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '3' } },
});
const FILES = Number(values.files);
const ROUNDS = Number(values.rounds);
const DEVICES = [
  ['Apple', 'iPhone 13'],
  ['Apple', 'iPhone 15 Pro'],
  ['Google', 'Pixel 7'],
  ['samsung', 'SM-S911B'],
  ['SONY', 'ILCE-7M3'],
  ['Canon', 'Canon EOS R6'],
  [null, null],
] as const;

/** One generated record at a time: the aggregator never sees a list. */
function* records(n: number, scattered: boolean, random: () => number): Generator<ScanEvent> {
  const cities = Array.from({ length: 300 }, () => [random() * 120 - 55, random() * 360 - 180] as const);
  const start = Date.UTC(2014, 0, 1);
  const span = Date.UTC(2024, 11, 31) - start;
  for (let i = 0; i < n; i += 1) {
    const id = `sha256:${i.toString(16).padStart(64, '0')}`;
    const path = `DCIM/${String(100 + Math.floor(i / 1000))}APPLE/IMG_${String(i).padStart(6, '0')}.HEIC`;
    if (random() < 0.01) {
      yield {
        type: 'record',
        record: {
          path,
          absPath: `/lib/${path}`,
          size: 1000,
          mtimeMs: 0,
          media: null,
          source: null,
          error: { code: 'corrupt_file', message: `box 'moov' at ${i} has impossible size 3` },
          cached: false,
        },
      };
      continue;
    }
    const city = cities[Math.floor(random() * cities.length)]!;
    const placed = random() > 0.15;
    const timed = random() > 0.05;
    const [lat, lon] = scattered
      ? [random() * 160 - 80, random() * 360 - 180]
      : [city[0] + (random() - 0.5) * 0.4, city[1] + (random() - 0.5) * 0.4];
    const device = DEVICES[Math.floor(random() * DEVICES.length)]!;
    yield {
      type: 'record',
      record: {
        path,
        absPath: `/lib/${path}`,
        size: 2_000_000,
        mtimeMs: 0,
        media: {
          id,
          taken_at: timed ? new Date(start + random() * span).toISOString().replace(/\.\d+Z$/, 'Z') : null,
          latitude: placed ? lat : null,
          longitude: placed ? lon : null,
          media_type: random() < 0.1 ? 'video' : 'photo',
          filename: path.slice(path.lastIndexOf('/') + 1),
          duration_seconds: null,
          device_make: device[0],
          device_model: device[1],
          device_lens_model: null,
        },
        source: { taken_at: timed ? 'exif_offset' : null, coordinates: placed ? 'exif_gps' : null },
        error: null,
        cached: false,
      },
    };
  }
}

function events(random: () => number): Event[] {
  return Array.from({ length: 300 }, (_, i) => ({
    id: i + 1,
    name: `Event ${i + 1}`,
    starts_at_local: `${2014 + Math.floor(random() * 11)}-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 9)}T20:00:00`,
    venue: { id: i % 120, name: `Venue ${i % 120}`, latitude: random() * 120 - 55, longitude: random() * 360 - 180 },
    media_count: 1 + Math.floor(random() * 40),
  }));
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  if (!HAS_CHROMIUM) {
    console.log(`bench:html ${NO_CHROMIUM_REASON}`);
    return;
  }
  const dir = mkdtempSync(join(os.tmpdir(), 'camroll-bench-html-'));
  console.log(
    `bench:html: ${FILES.toLocaleString('en-US')} files, ${ROUNDS} rounds; ${os.cpus().length} CPUs ` +
      `(${os.cpus()[0]?.model ?? '?'}), node ${process.version}`,
  );
  const browser = await launchChromium();
  try {
    for (const scattered of [false, true]) {
      const random = seededRandom(30);
      const t0 = performance.now();
      const library = createLibraryAggregator();
      for (const event of records(FILES, scattered, random)) library.add(event);
      const model = library.result();
      const aggregateMs = performance.now() - t0;
      const file = join(dir, `report-${scattered ? 'scattered' : 'clustered'}.html`);
      const t1 = performance.now();
      await writeHtmlReport(file, {
        subject: 'bench',
        generated_at: new Date().toISOString(),
        library: model,
        sync: null,
        history: buildHistory('bench-user', events(random), null),
      });
      const writeMs = performance.now() - t1;
      const bytes = statSync(file).size;
      const drawn: number[] = [];
      const wall: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const opened = await openReport(browser, file);
        if (opened.errors.length > 0 || opened.requests.length > 0)
          throw new Error(`the page failed: ${[...opened.errors, ...opened.requests].join('; ')}`);
        // The drawing painted: two animation frames after the script's mark, on the page's clock from navigation.
        drawn.push(
          Math.round(
            (await opened.page.evaluate(
              'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now()))))',
            )) as number,
          ),
        );
        wall.push(opened.drawnMs);
        await opened.context.close();
      }
      console.log(
        `${scattered ? 'scattered' : 'clustered'}: ${model.cells.cells.length.toLocaleString('en-US')} cells of ` +
          `${model.cells.size_deg}°, ${model.problems.rows.length} problems, ${model.months.length} months; ` +
          `file ${(bytes / 1e6).toFixed(2)} MB (limit 5); aggregate ${aggregateMs.toFixed(0)} ms, write ` +
          `${writeMs.toFixed(0)} ms; painted after ${median(drawn)} ms median of [${drawn.join(', ')}] (limit 2000), ` +
          `open-to-drawn from the driver ${median(wall)} ms`,
      );
    }
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
