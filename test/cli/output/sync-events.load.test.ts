import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', '..', 'src');

/** The project modules a source loads with it: its static value imports, followed (type-only and dynamic ones are not). */
function loadedWith(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/^import\s+(?!type\s)[^;]*?\sfrom\s+'(\.[^']+)';/gms)) {
    loadedWith(resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts')), seen);
  }
  return seen;
}

describe('sync-events: what loads with the command', () => {
  it('the summary (sync-result, the events table, the stats) is not loaded until a pass ends', () => {
    const loaded = [...loadedWith(join(SRC, 'cli', 'output', 'sync-events.ts'))].map((file) =>
      file.slice(SRC.length + 1),
    );
    expect(loaded).toContain(join('cli', 'format', 'vocabulary.ts'));
    for (const late of ['sync-result.ts', 'sync-outcome.ts']) expect(loaded).not.toContain(join('cli', 'output', late));
    for (const late of ['events.ts', 'stats.ts']) expect(loaded).not.toContain(join('cli', 'format', late));
  });
});
