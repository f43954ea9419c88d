import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCamroll, type RunResult } from './helpers/camroll.js';
import { createSyncEnv, type SyncEnv } from './helpers/sync-env.js';

/**
 * An export known to be whole, on the real binary: a Takeout given in numbered parts with
 * part 002 missing (fixtures/exports/takeout-gap, scripts/make-export-fixtures.sh) is named
 * in the summary, and sync does not call sync-complete for it unless --allow-missing-parts.
 */

const GAP = join(ROOT, 'fixtures', 'exports', 'takeout-gap');
const PARTS = ['takeout-20250101T000000Z-001.zip', 'takeout-20250101T000000Z-003.zip'].map((name) => join(GAP, name));
const MISSING = 'takeout-20250101T000000Z: part 002 missing';

describe('an export given with parts missing', () => {
  let env: SyncEnv;
  beforeAll(async () => {
    env = await createSyncEnv();
  });
  afterAll(async () => env?.close());

  const run = (args: string[]): Promise<RunResult> =>
    runCamroll(args, { env: env.clientEnv(env.serve.baseUrl), cwd: ROOT });

  it('scan names the missing part (each part, or the folder holding them) and reads what is given', async () => {
    for (const roots of [PARTS, [GAP]]) {
      const scan = await run(['scan', ...roots, '--no-cache', '--archives']);
      expect(scan.stderr).toContain(MISSING);
      expect(scan.stderr).toMatch(/missing_parts/);
      expect(scan.code, scan.stderr).toBe(0); // what was given was read whole
    }
    const whole = await run(['scan', PARTS[0]!, '--no-cache']);
    expect(whole.stderr).not.toMatch(/part 002/); // 001 alone has no gap below it
  });

  it('sync does not call sync-complete, naming the missing part; with --allow-missing-parts it does', async () => {
    const sync = (extra: string[]): Promise<RunResult> =>
      run(['sync', ...PARTS, '--email', 'parts@example.com', '--json', '--no-cache', ...extra]);
    const first = await sync([]);
    expect(first.code).toBe(1);
    const result = JSON.parse(first.stdout) as { sync_complete: boolean; outcome: string; not_examined: string };
    expect(result).toMatchObject({ sync_complete: false, outcome: 'not_examined' });
    expect(result.not_examined).toContain(MISSING);
    expect(first.stderr).toContain('--allow-missing-parts');

    const allowed = await sync(['--allow-missing-parts']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ sync_complete: true, outcome: 'ok', sent: 0 });
  });

  it('sync --dry-run says what the real run would decide: no sync-complete, the part named', async () => {
    const dry = (extra: string[]): Promise<RunResult> => run(['sync', ...PARTS, '--dry-run', '--no-cache', ...extra]);
    const plain = await dry([]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^sync-complete: +a real run would not call it: parts of the export were not given/m);
    expect(plain.stdout).toContain(MISSING);
    const json = JSON.parse((await dry(['--json'])).stdout) as { not_examined?: string };
    expect(json.not_examined).toContain(MISSING);
    const allowed = await dry(['--allow-missing-parts', '--json']);
    expect(JSON.parse(allowed.stdout)).not.toHaveProperty('not_examined');
  });
});
