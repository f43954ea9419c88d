import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MediaMetadata } from '../../src/contract/index.js';
import { ROOT, runCamroll, tempHome, type RunResult } from './helpers/camroll.js';

/**
 * The real binary against fixtures/library, compared with the hand-written answer key in
 * fixtures/expected/ (see fixtures/README.md for how each file and its answer were made).
 */

const LIBRARY = 'fixtures/library';
const KEY_DIR = join(ROOT, 'fixtures', 'expected');

const Source = z.object({ taken_at: z.string().nullable(), coordinates: z.string().nullable() });
const ORIGINS = [
  'own',
  'partner_shared',
  'shared_album',
  'received',
  'screenshot',
  'trashed',
  'edited_copy',
  'live_photo_video',
  'unknown',
] as const;
/**
 * A line's `source`: the key's rule names, plus what the readers skipped (absent when
 * nothing), the file's origin and the rule that gave it (and the file it pairs with).
 */
const LineSource = Source.extend({
  warnings: z
    .array(z.object({ code: z.string().min(1), message: z.string().min(1) }).strict())
    .min(1)
    .optional(),
  origin: z.enum(ORIGINS),
  origin_rule: z.string().min(1),
  paired_with: z.string().min(1).optional(),
}).strict();
const KeyMedia = z.object({
  id: z.string(),
  taken_at: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  media_type: z.enum(['photo', 'video']),
  filename: z.string(),
  duration_seconds: z.number().nullable(),
  device_make: z.string().nullable(),
  device_model: z.string().nullable(),
  device_lens_model: z.string().nullable(),
});
const KeyEntry = z.object({
  path: z.string(),
  media: KeyMedia.optional(),
  source: Source.optional(),
  /** Codes of `source.warnings`, in order (src/scan/extract/warnings.ts). */
  warnings: z.array(z.string()).optional(),
  error: z.object({ code: z.string() }).optional(),
  alt_error: z.string().optional(),
  duplicate_of: z.string().optional(),
  /** The class of a file not sent by default, by a positive signal (src/scan/evidence). */
  left_out: z.enum(ORIGINS).optional(),
  event_id: z.number().int().nullable(),
  note: z.string(),
});
type KeyEntry = z.infer<typeof KeyEntry>;
const KeySummary = z.object({
  lines: z.number(),
  media: z.number(),
  photos: z.number(),
  videos: z.number(),
  errors: z.number(),
  errors_by_code: z.record(z.string(), z.number()),
  skipped_total: z.number(),
  skipped_by_reason: z.record(z.string(), z.number()),
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  would_reject: z.object({ missing_coordinates: z.number(), missing_taken_at: z.number() }),
  duplicate_files: z.number(),
  distinct_ids: z.number(),
  sync_expected: z.object({
    matched_media_by_event: z.record(z.string(), z.number()),
    unlicensed_at_venue_6: z.number(),
  }),
});

/** A `scan --jsonl` line (docs/contract/product-decisions.md §1): media with its sources, or an error. */
const Line = z.union([
  z
    .object({ path: z.string(), media: MediaMetadata, source: LineSource, left_out: z.enum(ORIGINS).optional() })
    .strict(),
  z
    .object({ path: z.string(), error: z.object({ code: z.string().min(1), message: z.string().min(1) }).strict() })
    .strict(),
]);
type Line = z.infer<typeof Line>;

const MEDIA_FIELDS = [
  'id',
  'taken_at',
  'latitude',
  'longitude',
  'media_type',
  'filename',
  'duration_seconds',
  'device_make',
  'device_model',
  'device_lens_model',
].sort();

const key: KeyEntry[] = readFileSync(join(KEY_DIR, 'scan.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => KeyEntry.parse(JSON.parse(line)));
const summaryKey = KeySummary.parse(JSON.parse(readFileSync(join(KEY_DIR, 'summary.json'), 'utf8')));

let home: ReturnType<typeof tempHome>;
let jsonlRun: RunResult;
let plainRun: RunResult;
const lines = new Map<string, Line>();
const unparsable: string[] = [];
const duplicatePaths: string[] = [];

beforeAll(async () => {
  home = tempHome('camroll-scan-fixtures-');
  [jsonlRun, plainRun] = await Promise.all([
    runCamroll(['scan', LIBRARY, '--jsonl', '--no-cache'], { env: home.env }),
    runCamroll(['scan', LIBRARY, '--no-cache'], { env: home.env }),
  ]);
  for (const text of jsonlRun.stdout.split('\n')) {
    if (text.trim() === '') continue;
    let parsed: Line;
    try {
      parsed = Line.parse(JSON.parse(text));
    } catch {
      unparsable.push(text);
      continue;
    }
    if (lines.has(parsed.path)) duplicatePaths.push(parsed.path);
    lines.set(parsed.path, parsed);
  }
}, 180_000);

afterAll(() => {
  if (home) rmSync(home.dir, { recursive: true, force: true });
});

describe('scan fixtures/library --jsonl --no-cache', () => {
  it('the key agrees with itself (ids are sha256, one line per media path)', () => {
    expect(key).toHaveLength(summaryKey.lines);
    for (const entry of key) {
      if (entry.media) expect(entry.media.id).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(Boolean(entry.media) !== Boolean(entry.error)).toBe(true);
    }
  });

  it('exits 1 because the library holds broken files, and keeps stdout to JSON lines', () => {
    expect(jsonlRun.signal).toBeNull();
    expect(jsonlRun.code, jsonlRun.stderr).toBe(1);
    expect(unparsable).toEqual([]);
    expect(duplicatePaths).toEqual([]);
  });

  it('prints exactly one line per media file: no junk, sidecar or non-media path, none missing', () => {
    const expected = key.map((entry) => entry.path).sort();
    expect([...lines.keys()].sort()).toEqual(expected);
    for (const skipped of summaryKey.skipped) {
      for (const path of lines.keys())
        expect(path.startsWith(skipped.path), `${path} should be skipped (${skipped.reason})`).toBe(false);
    }
  });

  it.each(key.filter((entry) => entry.error).map((entry) => [entry.path, entry] as const))(
    'reports %s as an error line and goes on',
    (path, entry) => {
      const line = lines.get(path);
      expect(line, `no line for ${path}`).toBeDefined();
      expect(line && 'error' in line ? line.error.code : line).toBe(entry.error?.code);
    },
  );

  it.each(key.filter((entry) => entry.media).map((entry) => [entry.path, entry] as const))(
    'reads %s as the key says',
    (path, entry) => {
      const line = lines.get(path);
      expect(line, `no line for ${path}`).toBeDefined();
      if (!line) return;
      if ('error' in line) {
        // Only where the issue allows either answer (WebP: own parser or a dedicated code).
        expect(entry.alt_error, `${path}: ${line.error.code} ${line.error.message}`).toBeDefined();
        expect(line.error.code).toBe(entry.alt_error);
        return;
      }
      const want = entry.media!;
      const got = line.media;
      expect(Object.keys(got).sort()).toEqual(MEDIA_FIELDS);
      expect(got.id).toBe(want.id);
      expect(got.filename).toBe(want.filename);
      expect(got.media_type).toBe(want.media_type);
      expect({ taken_at: line.source.taken_at, coordinates: line.source.coordinates }).toEqual(entry.source);
      // A skipped part is said, never silent; a file read whole says nothing.
      expect(
        (line.source.warnings ?? []).map((w) => w.code),
        JSON.stringify(line.source.warnings),
      ).toEqual(entry.warnings ?? []);
      if (want.taken_at === null) {
        expect(got.taken_at).toBeNull();
      } else {
        expect(got.taken_at).toMatch(/Z$/);
        expect(new Date(got.taken_at!).toISOString()).toBe(new Date(want.taken_at).toISOString());
      }
      for (const field of ['latitude', 'longitude'] as const) {
        if (want[field] === null) expect(got[field], field).toBeNull();
        else
          expect(Math.abs((got[field] ?? Number.NaN) - want[field]), `${field} ${got[field]}`).toBeLessThanOrEqual(
            1e-5,
          );
      }
      if (want.duration_seconds === null) expect(got.duration_seconds).toBeNull();
      else expect(Math.abs((got.duration_seconds ?? Number.NaN) - want.duration_seconds)).toBeLessThanOrEqual(0.1);
      expect({ make: got.device_make, model: got.device_model, lens: got.device_lens_model }).toEqual({
        make: want.device_make,
        model: want.device_model,
        lens: want.device_lens_model,
      });
      // No file changes to a class left out unless a positive signal says so (the key names each one).
      expect(line.left_out, `${path}: ${line.source.origin} by ${line.source.origin_rule}`).toBe(entry.left_out);
      if (entry.left_out === undefined) expect(['own', 'unknown']).toContain(line.source.origin);
      else expect(line.source.origin).toBe(entry.left_out);
    },
  );

  it('gives the same id to the same bytes under another name and folder', () => {
    for (const entry of key.filter((e) => e.duplicate_of)) {
      const copy = lines.get(entry.path);
      const original = lines.get(entry.duplicate_of!);
      expect(copy && 'media' in copy ? copy.media.id : copy).toBe(
        original && 'media' in original ? original.media.id : original,
      );
    }
  });
});

describe('scan fixtures/library (summary on stdout)', () => {
  /** The value after a summary label, e.g. `  media:   46 (photos 40, videos 6)`. */
  const field = (label: string): string => {
    const match = new RegExp(`^\\s*${label}:\\s*(.*)$`, 'm').exec(plainRun.stdout);
    expect(match, `no "${label}:" line in\n${plainRun.stdout}`).not.toBeNull();
    return match![1]!.trim();
  };
  /** `a 3, b 1` -> {a: 3, b: 1}. */
  const counts = (text: string): Record<string, number> => {
    const inner = /\((.*)\)/.exec(text)?.[1] ?? '';
    return Object.fromEntries(
      inner
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '')
        .map((part) => {
          const at = part.lastIndexOf(' ');
          return [part.slice(0, at), Number(part.slice(at + 1))];
        }),
    );
  };

  it('exits 1 and prints the summary on stdout, nothing else', () => {
    expect(plainRun.code, plainRun.stderr).toBe(1);
    expect(plainRun.stdout).not.toMatch(/^\{/m);
  });

  it('counts files, media, photos and videos', () => {
    expect(Number.parseInt(field('files found'), 10)).toBe(summaryKey.lines);
    expect(field('media')).toBe(`${summaryKey.media} (photos ${summaryKey.photos}, videos ${summaryKey.videos})`);
  });

  it('counts errors by code: unreadable (not read at all) and damaged (read, unusable) apart', () => {
    const unreadable = field('unreadable');
    const damaged = field('damaged');
    expect(Number.parseInt(unreadable, 10) + Number.parseInt(damaged, 10)).toBe(summaryKey.errors);
    expect({ ...counts(unreadable), ...counts(damaged) }).toEqual(summaryKey.errors_by_code);
    expect(Object.keys(counts(unreadable)).every((code) => code === 'read_error' || code === 'internal_error')).toBe(
      true,
    );
  });

  it('counts skipped files and folders by reason', () => {
    const text = field('skipped');
    expect(Number.parseInt(text, 10)).toBe(summaryKey.skipped_total);
    expect(counts(text)).toEqual(summaryKey.skipped_by_reason);
  });

  it('counts what the service would reject, and duplicate contents', () => {
    const { missing_coordinates: coordinates, missing_taken_at: takenAt } = summaryKey.would_reject;
    expect(field('would be rejected')).toBe(
      `${coordinates + takenAt} (missing_coordinates ${coordinates}, missing_taken_at ${takenAt})`,
    );
    const duplicates = field('duplicates');
    expect(Number.parseInt(duplicates, 10)).toBe(summaryKey.duplicate_files);
    expect(duplicates).toContain(`(${summaryKey.distinct_ids} distinct contents)`);
  });

  it('counts what is collapsed into its pair, and leaves nothing else out', () => {
    expect(field('collapsed')).toBe('1 edited copy (file name)  (one item per moment)');
    expect(plainRun.stdout).not.toMatch(/^\s*left out:/m);
  });
});

describe('sync fixtures/library against the bundled demo catalog (embedded service)', () => {
  const SyncSummary = z.object({ user_id: z.string(), matched: z.number(), unlicensed: z.number() }).loose();
  const EventsPage = z.object({
    events: z.array(z.object({ id: z.number(), media: z.array(z.object({ media_id: z.string() })) })),
  });
  let syncRun: RunResult;
  let eventsRun: RunResult;

  beforeAll(async () => {
    const syncHome = tempHome('camroll-sync-fixtures-');
    const env = syncHome.env;
    syncRun = await runCamroll(['sync', LIBRARY, '--email', 'fixtures@example.com', '--json'], { env });
    const userId = SyncSummary.safeParse(JSON.parse(syncRun.stdout || '{}')).data?.user_id ?? 'unknown';
    eventsRun = await runCamroll(['events', '--user', userId, '--all', '--json'], { env });
    rmSync(syncHome.dir, { recursive: true, force: true });
  }, 180_000);

  it('matches each anchor-event file to its event, and nothing else', () => {
    expect(syncRun.code, syncRun.stderr).toBe(0);
    expect(eventsRun.code, eventsRun.stderr).toBe(0);
    const summary = SyncSummary.parse(JSON.parse(syncRun.stdout));
    const page = EventsPage.parse(JSON.parse(eventsRun.stdout));
    const matchedEvents = new Set([1, 2, 3, 4, 5, 8]);
    const want = new Map<number, string[]>();
    for (const entry of key) {
      // One item per moment: what is left out is not sent.
      if (entry.media && !entry.left_out && entry.event_id !== null && matchedEvents.has(entry.event_id)) {
        want.set(entry.event_id, [...(want.get(entry.event_id) ?? []), entry.media.id].sort());
      }
    }
    const got = new Map(page.events.map((event) => [event.id, event.media.map((m) => m.media_id).sort()]));
    expect(Object.fromEntries(got)).toEqual(Object.fromEntries(want));
    expect(summary.matched).toBe(
      Object.values(summaryKey.sync_expected.matched_media_by_event).reduce((a, b) => a + b, 0),
    );
    expect(summary.unlicensed).toBe(summaryKey.sync_expected.unlicensed_at_venue_6);
  });
});
