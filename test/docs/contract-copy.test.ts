import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/contract/ holds the partner contract and the product decisions, so a fresh clone can
// follow every link; the originals live in ../shared beside the checkout. While that folder is
// present, the copies must be identical to it. docs/style.md is the project's own (no copy).
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHARED = `${ROOT}../shared/`;
const FILES = ['contract/partner-interface.md', 'contract/product-decisions.md'];
/** The file's name in ../shared (flat). */
const shared = (name: string): string => name.replace(/^contract\//, '');
const hasShared = FILES.every((name) => existsSync(SHARED + shared(name)));

describe('docs/contract', () => {
  it("holds the style notes, the project's own", () => {
    expect(readFileSync(`${ROOT}docs/style.md`, 'utf8')).toMatch(/^# /);
  });

  it.each(FILES)('holds %s', (name) => {
    expect(readFileSync(`${ROOT}docs/${name}`, 'utf8')).toMatch(/^# /);
  });

  it.skipIf(!hasShared).each(FILES)('%s is identical to ../shared', (name) => {
    const copy = readFileSync(`${ROOT}docs/${name}`, 'utf8');
    expect(copy, `docs/${name} differs from ../shared: copy it again`).toBe(
      readFileSync(SHARED + shared(name), 'utf8'),
    );
  });
});
