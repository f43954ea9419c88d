import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { findDryRunJournal, type DryRunFinding, type DryRunLookups } from '../../src/sync/dry-run-journal.js';
import { JOURNAL_SCHEMA_VERSION, openJournal } from '../../src/sync/journal.js';
import type { SyncIdentity } from '../../src/sync/run.js';

const USER = '7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a11';
const TARGET = 'https://api.example.com/v1';

/** Lookups answering from fixed values; `reads` counts the connections a dry run opened. */
interface Answers {
  known?: string;
  hasSynced?: boolean;
  /** Null: the service has received nothing for the user. */
  lastSyncAt?: string | null;
  failure?: Error;
}

function lookups(answer: Answers): DryRunLookups & { reads: number } {
  const fake = {
    reads: 0,
    target: async () => TARGET,
    recall: async (_target: string, email: string) => (email === 'ana@example.com' ? (answer.known ?? null) : null),
    read: async <T>(use: (client: never) => Promise<T>): Promise<T> => {
      fake.reads += 1;
      if (answer.failure) throw answer.failure;
      const client = {
        health: async () => ({ status: 'ok', partner_id: 'partner-1', environment: 'sandbox', rate_limit: null }),
        stats: async () => ({
          has_synced: answer.hasSynced ?? false,
          last_sync_at: 'lastSyncAt' in answer ? answer.lastSyncAt : '2024-07-13T00:00:00Z',
        }),
      };
      return use(client as never);
    },
  };
  return fake;
}

describe('findDryRunJournal', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'camroll-plan-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const find = (identity: SyncIdentity | null, found: DryRunFinding[], lookup: DryRunLookups, full = false) =>
    findDryRunJournal({
      identity,
      full,
      journalDir: dir,
      lookups: lookup,
      signal: new AbortController().signal,
      onFinding: (f) => found.push(f),
    });

  it('without a user there is nothing to look up', async () => {
    const found: DryRunFinding[] = [];
    const lookup = lookups({});
    expect(await find(null, found, lookup)).toBeNull();
    expect(found).toEqual([]);
    expect(lookup.reads).toBe(0);
  });

  it('an e-mail not known on this machine is said, and the service is not asked (a dry run never creates a user)', async () => {
    const found: DryRunFinding[] = [];
    const lookup = lookups({});
    expect(await find({ email: 'bo@example.com' }, found, lookup)).toBeNull();
    expect(found).toEqual([{ type: 'plan_unknown_email', email: 'bo@example.com', target: TARGET }]);
    expect(lookup.reads).toBe(0);
  });

  it('says which pass a real run would be, then that no journal is on this machine', async () => {
    const found: DryRunFinding[] = [];
    expect(await find({ email: 'ana@example.com' }, found, lookups({ known: USER, hasSynced: true }))).toBeNull();
    expect(found).toEqual([{ type: 'plan_pass', pass: 'incremental', hasSynced: true }, { type: 'plan_no_journal' }]);
    const full: DryRunFinding[] = [];
    await find({ userId: USER }, full, lookups({ hasSynced: true }), true);
    expect(full[0]).toEqual({ type: 'plan_pass', pass: 'full', hasSynced: true });
  });

  it('a service that cannot answer leaves the local journal to count from; Ctrl-C stays an interruption', async () => {
    const found: DryRunFinding[] = [];
    const failure = new Error('connection refused');
    expect(await find({ userId: USER }, found, lookups({ failure }))).toBeNull();
    expect(found).toEqual([{ type: 'plan_unchecked', error: failure }, { type: 'plan_no_journal' }]);
    await expect(
      find({ userId: USER }, [], lookups({ failure: new InterruptedError('interrupted') })),
    ).rejects.toBeInstanceOf(InterruptedError);
  });

  it("opens the user's journal read-only: by its exact key with the service, by base URL and user id without", async () => {
    openJournal({ dir, key: { baseUrl: TARGET, partnerId: 'partner-1', userId: USER } }).close();
    for (const lookup of [lookups({ hasSynced: true }), lookups({ failure: new Error('down') })]) {
      const found: DryRunFinding[] = [];
      const reader = await find({ userId: USER }, found, lookup);
      expect(reader).not.toBeNull();
      reader?.close();
      expect(found.map((f) => f.type)).not.toContain('plan_no_journal');
    }
  });

  it(
    'a journal with accepted items for a user the service has received nothing for: a real run starts it over, so ' +
      'no plan',
    async () => {
      const journal = openJournal({ dir, key: { baseUrl: TARGET, partnerId: 'partner-1', userId: USER } });
      const item = { id: 'sha256:' + 'a'.repeat(64), fingerprint: Buffer.from('fp') };
      const pass = journal.beginPass('full');
      journal.completeBatch(journal.beginBatch(pass, [item]), { accepted: [item], rejected: [] });
      journal.close();

      const reset: DryRunFinding[] = [];
      expect(await find({ userId: USER }, reset, lookups({ hasSynced: false, lastSyncAt: null }))).toBeNull();
      expect(reset.map((f) => f.type)).toEqual(['plan_pass', 'plan_journal_reset']);

      // The service has the user's items, or could not be asked: the journal is what a real run uses.
      for (const lookup of [lookups({ hasSynced: true }), lookups({ failure: new Error('down') })]) {
        const found: DryRunFinding[] = [];
        const reader = await find({ userId: USER }, found, lookup);
        expect(reader?.plan(item.id, item.fingerprint)).toBe('answered');
        reader?.close();
        expect(found.map((f) => f.type)).not.toContain('plan_journal_reset');
      }
    },
  );

  it('a journal of a newer camroll is refused by name, with or without the service, never taken for none', async () => {
    const journal = openJournal({ dir, key: { baseUrl: TARGET, partnerId: 'partner-1', userId: USER } });
    const path = journal.path;
    journal.close();
    const db = new Database(path);
    db.pragma(`user_version = ${JOURNAL_SCHEMA_VERSION + 1}`);
    db.close();
    for (const lookup of [lookups({ hasSynced: true }), lookups({ failure: new Error('down') })]) {
      const found: DryRunFinding[] = [];
      const message = expect.stringContaining(`${path} was written by a newer camroll`);
      const refused = { code: 'journal_error', message };
      await expect(find({ userId: USER }, found, lookup)).rejects.toMatchObject(refused);
      expect(found.map((f) => f.type)).not.toContain('plan_no_journal');
    }
  });
});
