import type { ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, ROOT, runCamroll, spawnCamroll, type RunResult } from './helpers/camroll.js';
import { TEST_KEY, type SyncEnv, useSyncLibrary } from './helpers/sync-env.js';

// At the São Paulo anchor event (5) of the demo catalog.
const PHOTO = join(ROOT, 'fixtures', 'library', 'events', 'sao-paulo', 'IMG_5003.jpg');

/** Resolves with stderr so far once a line matches; rejects if the process ends first. */
function waitForLine(child: ChildProcess, done: Promise<RunResult>, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer | string): void => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        child.stderr!.off('data', onData);
        resolve(seen);
      }
    };
    child.stderr!.on('data', onData);
    void done.then((r) => reject(new Error(`camroll ended (${r.code}) before ${pattern}: ${r.stderr}`)));
  });
}

describe('camroll sync --watch against camroll serve', () => {
  let env: SyncEnv;
  let lib: string;
  useSyncLibrary({ files: 6, anchorShare: 0, seed: 3, perFolder: 6 }, (suite) => ({ env, lib } = suite));

  it('sends a photo copied in after the pass, skips junk and what was sent, and ends cleanly on Ctrl-C', async () => {
    const child = spawnCamroll(['sync', lib, '--email', 'watch@example.com', '--watch', '--json'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    const done = collect(child, 120_000);
    await waitForLine(
      child,
      done,
      /^camroll: watching 1 folder for new or changed files(?: \(polling\))?; Ctrl-C stops$/m,
    );

    // Junk first (a thumbnail folder, a text file), then the photo in a new folder.
    mkdirSync(join(lib, '.thumbnails'));
    writeFileSync(join(lib, '.thumbnails', 'thumb.jpg'), 'not a photo');
    writeFileSync(join(lib, 'notes.txt'), 'not media');
    mkdirSync(join(lib, 'arrived'));
    copyFileSync(PHOTO, join(lib, 'arrived', 'IMG_5003.jpg'));
    await waitForLine(
      child,
      done,
      /^camroll: watch: 1 new or changed file, sent 1 \(accepted 1, matched 1, rejected 0\)$/m,
    );

    // The same bytes written again: answered already, nothing is sent again.
    writeFileSync(join(lib, 'arrived', 'IMG_5003.jpg'), readFileSync(PHOTO));
    await waitForLine(child, done, /^camroll: watch: 1 new or changed file, nothing new to send, 1 already sent$/m);

    child.kill('SIGINT');
    const result = await done;
    // A watch stopped by the user ends normally.
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      user_id: string;
      outcome: string;
      sent: number;
      sync_complete: boolean;
      watch: {
        changes: number;
        files: number;
        sent: number;
        matched: number;
        skipped_already_sent: number;
        failed_batches: number;
      };
    };
    expect(summary).toMatchObject({ outcome: 'ok', sent: 6, sync_complete: true });
    expect(summary.watch).toMatchObject({
      changes: 2,
      files: 2,
      sent: 1,
      matched: 1,
      skipped_already_sent: 1,
      failed_batches: 0,
    });
    expect(`${result.stdout}${result.stderr}`).not.toContain(TEST_KEY);

    // The service has the photo, at its event.
    const events = (await env.events(summary.user_id)) as Array<{ id: number; media?: Array<{ media_id: string }> }>;
    expect(events.map((e) => e.id)).toEqual([5]);
    const id = `sha256:${createHash('sha256').update(readFileSync(PHOTO)).digest('hex')}`;
    expect(events[0]!.media?.map((m) => m.media_id)).toEqual([id]);
  }, 120_000);

  it('a sync that fails before watching ends at once: the watches do not keep it alive', async () => {
    const run = await runCamroll(['sync', lib, '--user', randomUUID(), '--watch'], {
      env: env.clientEnv(env.serve.baseUrl),
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('[user_not_found]');
    expect(run.stderr).not.toContain('watching');
  });
});
