import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { earlierJournalFileName } from '../helpers/journal.js';
import { ROOT, runCamroll } from './helpers/camroll.js';
import { startFaultProxy } from './helpers/fault-proxy.js';
import type { LibraryFacts } from './helpers/library.js';
import { TEST_KEY, type SyncEnv, useSyncLibrary } from './helpers/sync-env.js';

interface Summary {
  user_id: string;
  outcome: string;
  files: number;
  sent: number;
  accepted: number;
  matched: number;
  skipped_already_sent: number;
  rejected: Record<string, number>;
  failed_batches: number;
  events: Array<{ id: number; media_count?: number }>;
  stats: { total_events: number; has_synced: boolean } | null;
}

const FIXTURES = join(ROOT, 'fixtures', 'library');

describe('camroll sync against camroll serve', () => {
  let env: SyncEnv;
  let lib: string;
  let facts: LibraryFacts;
  useSyncLibrary({ files: 120, anchorShare: 0.15, seed: 11, perFolder: 40 }, (suite) => ({ env, lib, facts } = suite));

  it('syncs a generated library: expected events, counts and stats; a second run sends nothing', async () => {
    const report = join(env.dir, 'report.jsonl');
    const run = await runCamroll(
      ['sync', lib, '--email', 'gen@example.com', '--batch-size', '25', '--json', '--report', report],
      {
        env: env.clientEnv(env.serve.baseUrl),
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as Summary;
    const rejected = facts.missingCoordinates + facts.missingTakenAt;
    expect(summary).toMatchObject({
      outcome: 'ok',
      files: 120,
      sent: 120,
      accepted: 120 - rejected,
      failed_batches: 0,
    });
    expect(summary.rejected).toEqual({
      missing_coordinates: facts.missingCoordinates,
      missing_taken_at: facts.missingTakenAt,
      invalid: 0,
    });
    const expectedEvents = [...facts.matchedByEvent.keys()].sort();
    expect(summary.events.map((e) => e.id).sort()).toEqual(expectedEvents);
    expect(summary.matched).toBe([...facts.matchedByEvent.values()].reduce((a, b) => a + b, 0));
    expect(summary.stats).toMatchObject({ total_events: expectedEvents.length, has_synced: true });
    for (const e of summary.events) expect(e.media_count).toBe(facts.matchedByEvent.get(e.id));

    const lines = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; reason: string; path: string });
    expect(lines).toHaveLength(rejected);
    expect(lines.every((l) => l.type === 'rejected' && l.path.endsWith('.jpg'))).toBe(true);

    const again = await runCamroll(['sync', lib, '--email', 'gen@example.com', '--json'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    expect(again.code, again.stderr).toBe(0);
    const second = JSON.parse(again.stdout) as Summary;
    expect(second.user_id).toBe(summary.user_id);
    expect(second).toMatchObject({ sent: 0, skipped_already_sent: 120 });
    expect(second.events.map((e) => e.id).sort()).toEqual(expectedEvents);

    // A dry run now plans nothing to send, from the journal and read-only calls.
    const dry = await runCamroll(['sync', lib, '--email', 'gen@example.com', '--dry-run'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^to send: +0 \(new 0, changed 0, pending 0\)$/m);
    expect(dry.stdout).toMatch(/^already answered: +120 /m);
    expect(dry.stderr).toContain('a real run would be an incremental pass (has_synced true)');
    const dryJson = JSON.parse(
      (
        await runCamroll(['sync', lib, '--email', 'gen@example.com', '--dry-run', '--json'], {
          env: env.clientEnv(env.serve.baseUrl),
        })
      ).stdout,
    ) as { plan: unknown };
    expect(dryJson.plan).toEqual({ new: 0, changed: 0, pending: 0, already_answered: 120 });

    const before = await env.events(summary.user_id);
    const full = await runCamroll(['sync', lib, '--user', summary.user_id, '--full', '--json'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    expect(full.code, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout)).toMatchObject({ sent: 120, accepted: 120 - rejected });
    // Re-sending everything upserts: the history is unchanged, no media counted twice.
    expect(await env.events(summary.user_id)).toEqual(before);
    // The id in capitals is the same user and the same journal: nothing to send again.
    const upper = await runCamroll(['sync', lib, '--user', summary.user_id.toUpperCase(), '--json'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    expect(upper.code, upper.stderr).toBe(0);
    expect(JSON.parse(upper.stdout)).toMatchObject({ user_id: summary.user_id, sent: 0, skipped_already_sent: 120 });

    // A journal the previous release kept under the id in capitals (file name and meta as typed)
    // is taken over by the next run with that spelling: found by the dry run, nothing resent.
    const journals = join(env.clientEnv('').XDG_DATA_HOME!, 'camroll', 'journals');
    const [name] = readdirSync(journals).filter((n) => n.endsWith('.sqlite'));
    const typed = summary.user_id.toUpperCase();
    const db = new Database(join(journals, name!));
    const meta = Object.fromEntries(db.prepare<[], [string, string]>('SELECT key, value FROM meta').raw().all());
    db.prepare("UPDATE meta SET value = ? WHERE key = 'user_id'").run(typed);
    db.close();
    const earlier = earlierJournalFileName({ baseUrl: meta.base_url!, partnerId: meta.partner_id!, userId: typed });
    renameSync(join(journals, name!), join(journals, earlier));
    const upperDry = await runCamroll(['sync', lib, '--user', typed, '--dry-run', '--json'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    expect(upperDry.code, upperDry.stderr).toBe(0);
    expect((JSON.parse(upperDry.stdout) as { plan: unknown }).plan).toMatchObject({ new: 0, already_answered: 120 });
    const taken = await runCamroll(['sync', lib, '--user', typed, '--json'], { env: env.clientEnv(env.serve.baseUrl) });
    expect(taken.code, taken.stderr).toBe(0);
    expect(JSON.parse(taken.stdout)).toMatchObject({ user_id: summary.user_id, sent: 0, skipped_already_sent: 120 });
    expect(readdirSync(journals).filter((n) => n.endsWith('.sqlite'))).toEqual([name]);

    // The key never appears in output, the report or any file under the temp home.
    for (const text of [
      run.stdout,
      run.stderr,
      again.stdout,
      again.stderr,
      full.stdout,
      full.stderr,
      readFileSync(report, 'utf8'),
    ]) {
      expect(text).not.toContain(TEST_KEY);
    }
    // --email remembered the user in the directory; it, like every file the client wrote, is
    // mode 0600 and holds no key.
    const clientEnv = env.clientEnv('');
    const directory = join(clientEnv.XDG_DATA_HOME!, 'camroll', 'users.sqlite3');
    expect(existsSync(directory)).toBe(true);
    for (const root of [clientEnv.XDG_CONFIG_HOME!, clientEnv.XDG_DATA_HOME!]) {
      for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const file = join(entry.parentPath, entry.name);
        expect({ file, mode: (statSync(file).mode & 0o777).toString(8) }).toEqual({ file, mode: '600' });
        expect(readFileSync(file).includes(TEST_KEY)).toBe(false);
      }
    }
  });

  it('--dry-run predicts rejections and makes no request', async () => {
    const proxy = await startFaultProxy({ target: env.serve.baseUrl });
    try {
      const run = await runCamroll(['sync', lib, '--email', 'dry@example.com', '--dry-run', '--json'], {
        env: env.clientEnv(proxy.baseUrl),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(proxy.log).toHaveLength(0);
      expect(run.stderr).not.toContain('embedded');
      const summary = JSON.parse(run.stdout) as Summary & { dry_run: boolean };
      expect(summary).toMatchObject({
        dry_run: true,
        sent: 120,
        accepted: 120 - facts.missingCoordinates - facts.missingTakenAt,
      });
      expect(summary.rejected).toEqual({
        missing_coordinates: facts.missingCoordinates,
        missing_taken_at: facts.missingTakenAt,
        invalid: 0,
      });
    } finally {
      await proxy.close();
    }
  });

  it('with a stale journal in capitals beside its own, a sync and a dry run without the host use its own', async () => {
    const proxy = await startFaultProxy({ target: env.serve.baseUrl });
    const target = { env: env.clientEnv(proxy.baseUrl) };
    let closed = false;
    try {
      const first = await runCamroll(['sync', lib, '--email', 'stale@example.com', '--json', '--no-events'], target);
      expect(first.code, first.stderr).toBe(0);
      const userId = (JSON.parse(first.stdout) as Summary).user_id;
      const journals = join(env.clientEnv('').XDG_DATA_HOME!, 'camroll', 'journals');
      const own = readdirSync(journals)
        .filter((n) => n.endsWith('.sqlite'))
        .find((n) => {
          const db = new Database(join(journals, n), { readonly: true });
          const meta = Object.fromEntries(db.prepare<[], [string, string]>('SELECT key, value FROM meta').raw().all());
          db.close();
          return meta.user_id === userId && meta.base_url === proxy.baseUrl;
        });
      expect(own).toBeDefined();
      // An earlier camroll ran again after the takeover (its own name), and a backup was restored
      // under a name that sorts first: both keep the id in capitals and only 10 answers.
      const db = new Database(join(journals, own!), { readonly: true });
      const meta = Object.fromEntries(db.prepare<[], [string, string]>('SELECT key, value FROM meta').raw().all());
      db.close();
      const typed = userId.toUpperCase();
      const earlier = earlierJournalFileName({ baseUrl: meta.base_url!, partnerId: meta.partner_id!, userId: typed });
      const stale = [earlier, `${'0'.repeat(32)}.sqlite`].map((n) => join(journals, n));
      for (const path of stale) {
        copyFileSync(join(journals, own!), path);
        const copy = new Database(path);
        copy.prepare("UPDATE meta SET value = ? WHERE key = 'user_id'").run(typed);
        copy.exec('DELETE FROM outcomes WHERE id NOT IN (SELECT id FROM outcomes ORDER BY id LIMIT 10)');
        copy.close();
      }
      const staleBytes = stale.map((path) => readFileSync(path));

      const again = await runCamroll(['sync', lib, '--user', typed, '--json', '--no-events'], target);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ user_id: userId, sent: 0, skipped_already_sent: 120 });

      await proxy.close();
      closed = true;
      for (const identity of [
        ['--user', typed],
        ['--email', 'stale@example.com'],
      ]) {
        const dry = await runCamroll(['sync', lib, ...identity, '--dry-run', '--json', '--no-events'], target);
        expect(dry.code, dry.stderr).toBe(0);
        expect((JSON.parse(dry.stdout) as { plan: unknown }).plan).toEqual({
          new: 0,
          changed: 0,
          pending: 0,
          already_answered: 120,
        });
      }
      // The stale copies were left as they were: never taken over, never written.
      expect(stale.map((path) => readFileSync(path))).toEqual(staleBytes);
    } finally {
      if (!closed) await proxy.close();
    }
  });

  it('does not retry a 4xx: an unknown user fails at once with exit 1', async () => {
    const proxy = await startFaultProxy({ target: env.serve.baseUrl });
    try {
      const user = randomUUID();
      const run = await runCamroll(['sync', lib, '--user', user], { env: env.clientEnv(proxy.baseUrl) });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('user_not_found');
      expect(proxy.log.filter((e) => e.path.includes(user))).toHaveLength(1);
      expect(`${run.stdout}${run.stderr}`).not.toContain(TEST_KEY);
    } finally {
      await proxy.close();
    }
  });

  it.each([
    [['--user', 'x', '--email', 'a@example.com'], 'not both'],
    [[], '--user'],
    [['--email', 'a@example.com', '--batch-size', '201'], 'batch-size'],
    [['--email', 'a@example.com', '--batch-size', '0'], 'batch-size'],
    [
      ['--email', 'a@example.com', '--watch', '--dry-run'],
      '--watch sends what changes: it cannot be combined with --dry-run',
    ],
    [['--email', 'a@example.com', '--poll'], '--poll goes with --watch'],
  ])('usage error (exit 2) for %j', async (args, message) => {
    const run = await runCamroll(['sync', lib, ...args], { env: env.clientEnv(env.serve.baseUrl) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it.skipIf(!existsSync(FIXTURES) || readdirSync(FIXTURES).length === 0)(
    'syncs the fixture library: anchor events 1, 2, 3, 4, 5 and 8',
    async () => {
      const run = await runCamroll(['sync', FIXTURES, '--email', 'demo@example.com', '--json'], {
        env: env.clientEnv(env.serve.baseUrl),
      });
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(run.stdout) as Summary;
      expect(summary.events.map((e) => e.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 8]);
      expect(summary.stats).toMatchObject({ total_events: 6, has_synced: true });
      expect(summary.failed_batches).toBe(0);
    },
  );
});
