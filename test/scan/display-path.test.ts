import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { displayPath, noticePathShower, recordDisplayPath } from '../../src/scan/roots.js';

// Absolute paths built on the platform's own root, so the rule is checked with its separators.
const abs = (...parts: string[]): string => path.join(path.parse(process.cwd()).root, ...parts);
const cwd = abs('home', 'ana');

describe('displayPath', () => {
  it('with one root, a file is shown relative to it', () => {
    expect(
      displayPath(abs('home', 'ana', 'Photos', '2024', 'a.jpg'), { roots: [abs('home', 'ana', 'Photos')], cwd }),
    ).toBe('2024/a.jpg');
  });

  it('with several roots, relative to the working folder (so two roots cannot show the same path)', () => {
    const roots = [abs('home', 'ana', 'Photos'), abs('mnt', 'card')];
    expect(displayPath(abs('home', 'ana', 'Photos', 'a.jpg'), { roots, cwd })).toBe('Photos/a.jpg');
    expect(displayPath(abs('mnt', 'card', 'DCIM', 'a.jpg'), { roots, cwd })).toBe('../../mnt/card/DCIM/a.jpg');
  });

  it('a root that is itself a file is shown by its name', () => {
    expect(displayPath(abs('mnt', 'card', 'a.jpg'), { roots: [abs('mnt', 'card', 'a.jpg')], cwd })).toBe('a.jpg');
  });
});

describe('noticePathShower', () => {
  it('names a root folder itself as the user would find it, never as an empty path', () => {
    const shown = noticePathShower({ roots: [abs('home', 'ana', 'Photos')], cwd });
    expect(shown(abs('home', 'ana', 'Photos'))).toBe('Photos');
    expect(shown(abs('home', 'ana', 'Photos', 'locked'))).toBe('locked');
    expect(noticePathShower({ roots: [cwd], cwd })(cwd)).toBe('.');
  });
});

describe('recordDisplayPath', () => {
  it("keeps the scanner's path with one root and shows it from the working folder with several", () => {
    const record = { path: '2024/a.jpg', absPath: abs('home', 'ana', 'Photos', '2024', 'a.jpg') };
    expect(recordDisplayPath(record, { roots: [abs('home', 'ana', 'Photos')], cwd })).toBe('2024/a.jpg');
    expect(recordDisplayPath(record, { roots: [abs('home', 'ana', 'Photos'), abs('mnt')], cwd })).toBe(
      'Photos/2024/a.jpg',
    );
  });
});
