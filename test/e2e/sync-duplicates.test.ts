import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCamroll } from './helpers/camroll.js';
import { createSyncEnv, TEST_KEY, type SyncEnv } from './helpers/sync-env.js';

interface Summary {
  outcome: string;
  files: number;
  duplicates: number;
  sent: number;
  skipped_already_sent: number;
}

const PHOTO = join(ROOT, 'fixtures', 'library', 'events', 'paris', 'IMG_8001.jpg');
const OTHER = join(ROOT, 'fixtures', 'library', 'events', 'sao-paulo', 'IMG_5003.jpg');

describe('camroll sync: the same bytes at two paths', () => {
  let env: SyncEnv;
  let lib: string;
  beforeAll(async () => {
    env = await createSyncEnv();
    lib = join(env.dir, 'lib');
    for (const folder of ['a', 'b', 'c']) mkdirSync(join(lib, folder), { recursive: true });
    // One photo under two names in two folders (its file name differs in what is sent), and another.
    copyFileSync(PHOTO, join(lib, 'a', 'one.jpg'));
    copyFileSync(PHOTO, join(lib, 'b', 'two.jpg'));
    copyFileSync(OTHER, join(lib, 'c', 'other.jpg'));
  }, 60_000);
  afterAll(async () => {
    await env?.close();
  });

  const sync = async (roots: string[]): Promise<Summary> => {
    const run = await runCamroll(['sync', ...roots, '--email', 'dupes@example.com', '--json', '--no-events'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(TEST_KEY);
    return JSON.parse(run.stdout) as Summary;
  };

  it('sends one copy once; an unchanged library then sends nothing, whatever order the copies come in', async () => {
    const first = await sync([lib]);
    expect(first).toMatchObject({ outcome: 'ok', files: 3, duplicates: 1, sent: 2 });

    // The copies in both orders (folders named in either order put either copy first), from
    // the scan cache and, with the cache gone, from reads that finish in any order.
    const folders = ['a', 'b', 'c'].map((f) => join(lib, f));
    const runs: Array<[string, string[], () => void]> = [
      ['a b c', folders, () => undefined],
      ['c b a', [...folders].reverse(), () => undefined],
      ['the library', [lib], () => undefined],
      [
        'the library, scan cache removed',
        [lib],
        () => rmSync(join(env.dir, 'cache'), { recursive: true, force: true }),
      ],
      [
        'c b a, scan cache removed',
        [...folders].reverse(),
        () => rmSync(join(env.dir, 'cache'), { recursive: true, force: true }),
      ],
      ['the library again', [lib], () => undefined],
    ];
    for (const [name, roots, before] of runs) {
      before();
      const again = await sync(roots);
      expect(again, name).toMatchObject({ outcome: 'ok', files: 3, duplicates: 1, sent: 0, skipped_already_sent: 2 });
    }

    // The dry run's plan counts what the real run did: nothing to send, both ids answered.
    for (const roots of [folders, [...folders].reverse()]) {
      const dry = await runCamroll(
        ['sync', ...roots, '--email', 'dupes@example.com', '--json', '--no-events', '--dry-run'],
        {
          env: env.clientEnv(env.serve.baseUrl),
        },
      );
      expect(dry.code, dry.stderr).toBe(0);
      expect(JSON.parse(dry.stdout)).toMatchObject({
        dry_run: true,
        files: 3,
        duplicates: 1,
        skipped_already_sent: 2,
        plan: { new: 0, changed: 0, pending: 0, already_answered: 2 },
      });
    }
  }, 180_000);
});
