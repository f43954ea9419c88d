import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCamroll, tempHome, type RunResult } from './helpers/camroll.js';

/**
 * Issue 28's evidence rules on the real binary, against fixtures/origins (a Takeout week made
 * by scripts/make-origin-fixtures.sh): the user was at event 1 (Madison Square Garden), their
 * partner at event 17664 (Citi Field) and shared two photos; a photo of event 17656 is trashed.
 */

const ORIGINS = 'fixtures/origins';
const P = 'Takeout/Google Photos/Photos from 2024';

interface Line {
  path: string;
  media: { id: string };
  source: { origin: string; origin_rule: string; paired_with?: string };
  left_out?: string;
}
interface Summary {
  user_id: string;
  sent: number;
  skipped_already_sent: number;
  left_out: Record<string, { files: number; signals: Record<string, number> }>;
  events: Array<{ id: number; media_count: number; media?: Array<{ media_id: string }> }>;
}

let home: ReturnType<typeof tempHome>;
const lines = new Map<string, Line>();
let scanRun: RunResult;

const sync = async (email: string, ...extra: string[]): Promise<Summary> => {
  const run = await runCamroll(['sync', ORIGINS, '--email', email, '--json', ...extra], { env: home.env });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Summary;
};
const eventIds = (summary: Summary): number[] => summary.events.map((event) => event.id).sort((a, b) => a - b);
const idOf = (name: string): string => lines.get(`${P}/${name}`)!.media.id;

beforeAll(async () => {
  home = tempHome('camroll-origins-');
  scanRun = await runCamroll(['scan', ORIGINS, '--jsonl', '--no-cache'], { env: home.env });
  for (const text of scanRun.stdout.trim().split('\n')) {
    const line = JSON.parse(text) as Line;
    lines.set(line.path, line);
  }
}, 120_000);

afterAll(() => {
  if (home) rmSync(home.dir, { recursive: true, force: true });
});

describe('scan --jsonl: each file with its origin, the rule that gave it, and left_out when not sent', () => {
  it.each([
    [`${P}/IMG_1201.HEIC`, 'own', 'takeout_camera_upload', undefined],
    [`${P}/IMG_1201.MP4`, 'live_photo_video', 'content_identifier', 'live_photo_video'],
    [`${P}/IMG_1202.HEIC`, 'own', 'takeout_camera_upload', undefined],
    [`${P}/IMG_1202.MOV`, 'live_photo_video', 'live_photo_stem', 'live_photo_video'],
    [`${P}/IMG_1203.jpg`, 'own', 'takeout_camera_upload', undefined],
    [`${P}/IMG_1203-edited.jpg`, 'edited_copy', 'edited_copy_name', 'edited_copy'],
    [`${P}/IMG_2001.jpg`, 'shared_album', 'takeout_shared_album', 'shared_album'],
    [`${P}/PXL_20240713_233000123.jpg`, 'partner_shared', 'takeout_partner_sharing', 'partner_shared'],
    [`${P}/PXL_20240713_234000456.jpg`, 'partner_shared', 'takeout_partner_sharing', 'partner_shared'],
    [`${P}/IMG-20240713-WA0001.jpg`, 'received', 'takeout_device_folder', 'received'],
    [`${P}/Screenshot_20240713-013000.png`, 'screenshot', 'takeout_device_folder', 'screenshot'],
    [`${P}/IMG_1205.PNG`, 'screenshot', 'exif_screenshot_comment', 'screenshot'],
    ['Takeout/Google Photos/Trash/IMG_1100.jpg', 'trashed', 'takeout_trashed', 'trashed'],
    // No signal at all is no reason to leave a file out.
    [`${P}/drawing.png`, 'unknown', 'no_signal', undefined],
  ])('%s: %s by %s', (path, origin, rule, leftOut) => {
    const line = lines.get(path);
    expect(line, `no line for ${path}`).toBeDefined();
    expect(line!.source).toMatchObject({ origin, origin_rule: rule });
    expect(line!.left_out).toBe(leftOut);
  });

  it('names the file a collapsed one pairs with', () => {
    expect(lines.get(`${P}/IMG_1201.MP4`)!.source.paired_with).toBe(`${P}/IMG_1201.HEIC`);
    expect(lines.get(`${P}/IMG_1203-edited.jpg`)!.source.paired_with).toBe(`${P}/IMG_1203.jpg`);
    expect(lines.size).toBe(14);
  });

  it('the summary counts each class left out or collapsed with its leading signal', async () => {
    const run = await runCamroll(['scan', ORIGINS], { env: home.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^\s+left out:\s+2 partner-shared \(Takeout\), 2 screenshots \(Screenshots\), 1 received \(WhatsApp Images\), 1 shared-album \(Takeout\), 1 trashed \(Takeout\)/m,
    );
    expect(run.stdout).toMatch(
      /^\s+collapsed:\s+2 Live Photo videos \(content identifier\), 1 edited copy \(file name\)/m,
    );
  });

  it('--include all leaves nothing out; an unknown class is a usage error', async () => {
    const all = await runCamroll(['scan', ORIGINS, '--jsonl', '--include', 'all'], { env: home.env });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).not.toContain('"left_out"');
    const bad = await runCamroll(['scan', ORIGINS, '--include', 'partners'], { env: home.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--include: unknown class 'partners'/);
  });

  it('scan --report lists each file sync would leave out, with its class', async () => {
    const report = join(home.dir, 'scan-report.jsonl');
    const run = await runCamroll(['scan', ORIGINS, '--report', report], { env: home.env });
    expect(run.code, run.stderr).toBe(0);
    const rows = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { path: string; left_out?: string });
    const leftOut = rows.filter((row) => row.left_out !== undefined);
    expect(leftOut).toHaveLength(10);
    expect(leftOut.find((row) => row.path.endsWith('IMG_1100.jpg'))?.left_out).toBe('trashed');
  });

  it('scan FILE explains the decision', async () => {
    const run = await runCamroll(['scan', `${ORIGINS}/${P}/PXL_20240713_233000123.jpg`], { env: home.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^\s+origin\s+partner_shared\s+\(takeout_partner_sharing: .*fromPartnerSharing\)$/m);
    expect(run.stdout).toMatch(/^\s+sent\s+no: partner_shared is left out \(--include partner_shared sends it\)$/m);
  });
});

describe('sync: evidence of attendance', () => {
  it("by default, no event from the partner's photos, and one item per moment", async () => {
    const summary = await sync('me@example.com');
    expect(eventIds(summary)).toEqual([1]);
    expect(summary.events[0]!.media_count).toBe(3);
    // Two Live Photos and an edited photo: three moments, three items (the stills, the original).
    const events = await runCamroll(['events', '--user', summary.user_id, '--all', '--json'], { env: home.env });
    expect(events.code, events.stderr).toBe(0);
    const [concert] = (JSON.parse(events.stdout) as { events: Summary['events'] }).events;
    expect(concert!.media!.map((m) => m.media_id).sort()).toEqual(
      [idOf('IMG_1201.HEIC'), idOf('IMG_1202.HEIC'), idOf('IMG_1203.jpg')].sort(),
    );
    expect(summary.sent).toBe(4); // and drawing.png, which has no place
    expect(summary.left_out.partner_shared).toEqual({ files: 2, signals: { Takeout: 2 } });
    expect(summary.left_out.live_photo_video?.files).toBe(2);

    // A wider set later sends what it newly includes, and nothing else.
    const wider = await sync('me@example.com', '--include', 'partner_shared');
    expect(wider.sent).toBe(2);
    expect(wider.skipped_already_sent).toBe(4);
    expect(eventIds(wider)).toEqual([1, 17664]);
    expect(wider.events.find((event) => event.id === 17664)!.media_count).toBe(2);
    expect(wider.left_out.partner_shared).toBeUndefined();
  }, 120_000);

  it('with --include partner_shared the partner event is created from the start', async () => {
    const summary = await sync('partner@example.com', '--include', 'partner_shared');
    expect(eventIds(summary)).toEqual([1, 17664]);
  }, 120_000);

  it('with --include all every file is sent: both halves of each pair, the trash', async () => {
    const summary = await sync('all@example.com', '--include', 'all');
    expect(summary.sent).toBe(14);
    expect(eventIds(summary)).toEqual([1, 17656, 17664]);
    expect(summary.events.find((event) => event.id === 1)!.media_count).toBe(7);
  }, 120_000);

  it('--dry-run says what it would leave out, --report lists each file left out', async () => {
    const dry = await runCamroll(['sync', ORIGINS, '--email', 'dry@example.com', '--dry-run'], { env: home.env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would leave out:\s+2 partner-shared \(Takeout\)/m);
    expect(dry.stdout).toMatch(/^collapsed:\s+2 Live Photo videos/m);
    const report = join(home.dir, 'report.jsonl');
    await sync('report@example.com', '--report', report);
    const rows = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .filter((row) => row.type === 'left_out');
    expect(rows).toHaveLength(10);
    expect(rows).toContainEqual({
      type: 'left_out',
      id: idOf('IMG_1201.MP4'),
      path: `${P}/IMG_1201.MP4`,
      origin: 'live_photo_video',
      rule: 'content_identifier',
      signal: 'content identifier',
      paired_with: `${P}/IMG_1201.HEIC`,
    });
  }, 120_000);
});
