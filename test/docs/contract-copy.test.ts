import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/contract/ holds the partner contract and the product decisions so a fresh clone can
// follow every link; the originals live in ../shared beside the checkout. While that folder is
// present, the copies must be identical to it.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHARED = `${ROOT}../shared/`;
const FILES = ['partner-interface.md', 'product-decisions.md'];
const hasShared = FILES.every((name) => existsSync(SHARED + name));

describe('docs/contract', () => {
  it.each(FILES)('holds %s', (name) => {
    expect(readFileSync(`${ROOT}docs/contract/${name}`, 'utf8')).toMatch(/^# /);
  });

  it.skipIf(!hasShared).each(FILES)('%s is identical to ../shared', (name) => {
    const copy = readFileSync(`${ROOT}docs/contract/${name}`, 'utf8');
    expect(copy, `docs/contract/${name} differs from ../shared/${name}: copy it again`).toBe(
      readFileSync(SHARED + name, 'utf8'),
    );
  });
});
