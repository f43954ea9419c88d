import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, ROOT, runCamroll, spawnCamroll, tempHome, waitForStderr, type RunResult } from './helpers/camroll.js';
import { startFaultProxy, type FaultProxy } from './helpers/fault-proxy.js';
import { generateLibrary } from './helpers/library.js';
import { createSyncEnv, type SyncEnv } from './helpers/sync-env.js';

/**
 * The archive cases scan-archives.test.ts leaves out, on the real binary: a plain `.tar`
 * export, archives with nothing in them, and Ctrl-C while a `.tgz` is being read (scan and
 * sync). Small inputs are made here from the committed fixtures; the large `.tgz` is packed
 * by tar in a temp folder.
 */

const LIBRARY = join(ROOT, 'fixtures', 'library');
const ARCHIVES = join(ROOT, 'fixtures', 'archives');
/** The folders packed into takeout-001/-002 (see scripts/make-archive-fixtures.sh). */
const PACKED = ['takeout/', 'events/new-york/'];
/** Photos in the large export: enough that the reading threads cannot run to its end before the interrupt. */
const BIG = 2000;

interface Line {
  path: string;
  media?: { id: string; taken_at: string | null; latitude: number | null; longitude: number | null };
  source?: { taken_at: string | null; coordinates: string | null };
  error?: { code: string; message: string };
}

const parseLines = (run: RunResult): Line[] =>
  run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);

/** What must be equal between a file and the same file read from an archive. */
const facts = (line: Line): unknown => ({
  media: line.media,
  source: memberSource(line.source),
  error: line.error?.code,
});

/** `source` with the file a pair's member goes with named by its member path (the archive part dropped). */
const memberSource = (source: Line['source']): unknown => {
  const paired = (source as { paired_with?: string } | undefined)?.paired_with;
  return paired === undefined
    ? source
    : { ...source, paired_with: paired.slice(paired.lastIndexOf('!/') + 1).replace(/^\//, '') };
};

/** The bytes of the 22-byte end-of-central-directory record alone: a valid zip with no members. */
const EMPTY_ZIP = Buffer.concat([Buffer.from('PK\x05\x06', 'latin1'), Buffer.alloc(18)]);

describe('camroll scan of export edge cases', () => {
  let home: ReturnType<typeof tempHome>;
  let work: string;
  const scan = (args: string[], cwd = work): Promise<RunResult> =>
    runCamroll(['scan', ...args], { env: home.env, cwd });

  beforeAll(() => {
    home = tempHome();
    work = mkdtempSync(join(home.dir, 'exports-'));
  });
  afterAll(() => rmSync(home.dir, { recursive: true, force: true }));

  it('a plain .tar export scans as the folder it was made from: ids, capture times, places, sidecars across parts', async () => {
    // The committed .tgz parts are GNU tar streams: unzipped, they are the .tar export itself.
    for (const part of ['takeout-001', 'takeout-002'])
      writeFileSync(join(work, `${part}.tar`), gunzipSync(readFileSync(join(ARCHIVES, `${part}.tgz`))));
    const library = await scan(['.', '--jsonl', '--no-cache'], LIBRARY);
    const folder = new Map(
      parseLines(library)
        .filter((line) => PACKED.some((prefix) => line.path.startsWith(prefix)))
        .map((line) => [line.path, facts(line)]),
    );
    expect(folder.size).toBeGreaterThanOrEqual(14);

    const run = await scan(['takeout-001.tar', 'takeout-002.tar', '--jsonl', '--no-cache']);
    expect(run.code, run.stderr).toBe(0);
    const lines = parseLines(run);
    const members = new Map(
      lines.map((line) => {
        const [archive, member] = line.path.split('!/');
        expect(archive).toMatch(/^takeout-00[12]\.tar$/);
        return [member!, facts(line)];
      }),
    );
    expect(members).toEqual(folder);
    // The JSON of part 2 reached the 2022 photos of part 1 (held until the end of the run).
    const crossPart = lines.filter(
      (line) => line.path.includes('Photos from 2022') && line.source?.taken_at === 'takeout',
    );
    expect(crossPart.length).toBeGreaterThanOrEqual(6);
    expect(run.stderr).toMatch(/trashed 1/);
  });

  it.each([
    ['zip', EMPTY_ZIP],
    // What `tar -cf x.tar -T /dev/null` writes: the end blocks, padded to one record.
    ['tar', Buffer.alloc(10240)],
  ])('a valid %s with no members scans as an empty folder does: nothing found, exit 0', async (kind, bytes) => {
    writeFileSync(join(work, `empty.${kind}`), bytes);
    const run = await scan([`empty.${kind}`, '--json', '--no-cache']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ files: 0, media: 0, errors: {} });
    const lines = await scan([`empty.${kind}`, '--jsonl', '--no-cache']);
    expect(lines.code, lines.stderr).toBe(0);
    expect(lines.stdout).toBe('');
  });

  it.each(['zip', 'tgz', 'tar'])(
    'a 0-byte .%s (a download that never started) is one truncated_archive line naming it, exit 1',
    async (kind) => {
      writeFileSync(join(work, `zero.${kind}`), '');
      const run = await scan([`zero.${kind}`, '--jsonl', '--no-cache']);
      expect(run.code, run.stderr).toBe(1);
      expect(parseLines(run)).toEqual([
        {
          path: `zero.${kind}`,
          error: { code: 'truncated_archive', message: 'the archive is empty: a download that never started' },
        },
      ]);
      expect(run.stderr).toMatch(/unreadable: +1 \(truncated_archive 1\)/);
    },
  );
});

describe('empty exports synced, and Ctrl-C while a .tgz export is read', () => {
  let env: SyncEnv;
  let proxy: FaultProxy;
  let work: string;
  let tgz: string;

  beforeAll(async () => {
    env = await createSyncEnv();
    proxy = await startFaultProxy({ target: env.serve.baseUrl });
    work = mkdtempSync(join(env.dir, 'big-'));
    const lib = join(work, 'photos');
    generateLibrary({
      dir: lib,
      files: BIG,
      anchorShare: 0.02,
      noGpsShare: 0,
      noDateShare: 0,
      seed: 17,
      perFolder: 250,
    });
    tgz = join(work, 'photos.tgz');
    execFileSync('tar', ['-czf', tgz, '-C', lib, ...readdirSync(lib).sort()]);
    rmSync(lib, { recursive: true, force: true });
  });
  afterAll(async () => {
    await proxy?.close();
    await env?.close();
  });

  it('sync of an empty zip is the sync of an empty folder; of a 0-byte zip, a failure: neither completes', async () => {
    writeFileSync(join(work, 'empty.zip'), EMPTY_ZIP);
    writeFileSync(join(work, 'zero.zip'), '');
    const sync = (file: string): Promise<RunResult> =>
      runCamroll(['sync', join(work, file), '--email', 'empty-export@example.com', '--json'], {
        env: env.clientEnv(env.serve.baseUrl),
      });
    const empty = await sync('empty.zip');
    expect(empty.code, empty.stderr).toBe(1);
    expect(JSON.parse(empty.stdout)).toMatchObject({
      files: 0,
      sent: 0,
      sync_complete: false,
      outcome: 'not_examined',
    });
    expect(empty.stderr).toContain('camroll: sync-complete was not called: no media file was found');
    expect(empty.stderr).toContain('--allow-empty');

    const zero = await sync('zero.zip');
    expect(zero.code, zero.stderr).toBe(1);
    expect(JSON.parse(zero.stdout)).toMatchObject({ files: 1, unreadable: 1, sent: 0, sync_complete: false });
    expect(zero.stderr).toContain('camroll: sync-complete was not called: 1 folder or file could not be read');
  });

  it('scan: exits 130 with a partial summary, as for a folder; the next scan reads the whole export', async () => {
    const scanEnv = env.clientEnv(env.serve.baseUrl);
    const child = spawnCamroll(['scan', tgz, '--jsonl', '--workers', '1'], { env: scanEnv });
    // Stop reading stdout after the first lines: the pipe fills and the scan waits there, so
    // the interrupt lands mid-stream whatever the machine's speed.
    const firstChunk = new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    const result = collect(child);
    await firstChunk;
    child.stdout!.pause();
    child.kill('SIGINT');
    child.stdout!.resume();
    const run = await result;
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(/Scan interrupted after \d+ files/);
    const printed = parseLines(run);
    expect(printed.length).toBeGreaterThan(0);
    expect(printed.length).toBeLessThan(BIG);
    for (const line of printed) expect(line.path).toMatch(/^.*photos\.tgz!\/roll-\d{4}\/IMG_\d{6}\.jpg$/);
    expect(run.stderr).not.toMatch(/Error|EPIPE|ERR_/);

    const again = await runCamroll(['scan', tgz, '--json'], { env: scanEnv });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ files: BIG, media: BIG });
  });

  it('sync: exits 130 without sync-complete, the journal consistent; the next run sends only what was not accepted', async () => {
    const args = ['sync', tgz, '--email', 'tgz-interrupted@example.com', '--json', '--no-cache'];
    const since = proxy.log.length;
    const child = spawnCamroll([...args, '--batch-size', '8', '--concurrency', '1', '--workers', '1', '--verbose'], {
      env: env.clientEnv(proxy.baseUrl),
    });
    const done = collect(child, 120_000);
    // The first batch answered: the export is still being read.
    await waitForStderr(child, done, /^camroll: POST \S+\/media -> 200 /m);
    child.kill('SIGINT');
    const result = await done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain(
      'camroll: sync interrupted; the journal is consistent: run the same command again to resume [interrupted]',
    );
    expect(result.stderr).not.toMatch(/\/sync-complete ->/);
    expect(proxy.log.slice(since).some((entry) => entry.path.endsWith('/sync-complete'))).toBe(false);
    const stopped = JSON.parse(result.stdout) as {
      user_id: string;
      outcome: string;
      sync_complete: boolean;
      files: number;
    };
    expect(stopped).toMatchObject({ outcome: 'interrupted', sync_complete: false });
    expect(stopped.files).toBeLessThan(BIG);

    // The journal opens cleanly and holds what the service accepted before the interrupt.
    const journals = join(env.dir, 'data', 'camroll', 'journals');
    for (const file of readdirSync(journals).filter((name) => name.endsWith('.sqlite'))) {
      const db = new Database(join(journals, file), { readonly: true });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
    }
    const accepted = env.journalAccepted((user) => user === stopped.user_id);
    expect(accepted.size).toBeGreaterThanOrEqual(8);
    expect(accepted.size).toBeLessThan(BIG);

    const resumeFrom = proxy.log.length;
    const resumed = await runCamroll(args, { env: env.clientEnv(proxy.baseUrl), timeoutMs: 120_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout) as {
      files: number;
      sent: number;
      skipped_already_sent: number;
      sync_complete: boolean;
    };
    expect(summary).toMatchObject({ files: BIG, sync_complete: true });
    const resent = proxy.forwardedIds(resumeFrom);
    for (const id of resent) expect(accepted.has(id), `accepted id ${id} was sent again`).toBe(false);
    expect(new Set(resent).size + accepted.size).toBe(BIG);
    expect(summary.skipped_already_sent).toBe(accepted.size);
    expect(env.journalAccepted((user) => user === stopped.user_id).size).toBe(BIG);
  }, 180_000);
});
