import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');

/** The TypeScript sources under a folder of src, with their text. */
function sources(folder: string): { file: string; text: string }[] {
  const root = join(SRC, folder);
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ file: join(folder, file), text: readFileSync(join(root, file), 'utf8') }));
}

/** Every module specifier a source imports, statically or dynamically. */
function specifiers(text: string): string[] {
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)'([^']+)'/g)].map((match) => match[1]!);
}

describe('layering', () => {
  it('a command never imports another command: shared pieces live outside src/cli/commands', () => {
    const offenders = sources('cli/commands').flatMap(({ file, text }) =>
      specifiers(text)
        .filter((spec) => spec.startsWith('./') || spec.includes('/commands/'))
        .map((spec) => `${file} -> ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('only the program registers commands: no other module of src/cli imports one', () => {
    const offenders = sources('cli')
      .filter(({ file }) => !file.startsWith(join('cli', 'commands')) && file !== join('cli', 'program.ts'))
      .flatMap(({ file, text }) =>
        specifiers(text)
          .filter((spec) => spec.includes('commands/'))
          .map((spec) => `${file} -> ${spec}`),
      );
    expect(offenders).toEqual([]);
  });

  it('src/sync neither imports src/cli nor writes to a terminal: it emits events and returns a result', () => {
    const offenders = sources('sync').flatMap(({ file, text }) => [
      ...specifiers(text)
        .filter((spec) => spec.includes('/cli/'))
        .map((spec) => `${file} -> ${spec}`),
      ...(/process\.(stdout|stderr)|console\./.test(text) ? [`${file} writes to a terminal`] : []),
    ]);
    expect(offenders).toEqual([]);
  });
});

describe('the scan behind its face', () => {
  /** Every module of src/ but src/scan, with what it imports (relative specifiers resolved to src/ paths). */
  const outside = sources('.').filter(({ file }) => !normalize(file).startsWith(join('scan', '')));

  it('no module outside src/scan imports a file inside it but src/scan/index.ts', () => {
    const offenders = outside.flatMap(({ file, text }) =>
      specifiers(text)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => relative(SRC, join(SRC, dirname(file), spec)))
        .filter((target) => target.startsWith(join('scan', '')) && target !== join('scan', 'index.js'))
        .map((target) => `${file} -> ${target}`),
    );
    expect(outside.length).toBeGreaterThan(50);
    expect(offenders).toEqual([]);
  });

  it('src/scan has no import circle (types included; a format loaded on demand is not an import)', () => {
    const graph = new Map<string, string[]>();
    for (const { file, text } of sources('scan')) {
      const statics = [...text.matchAll(/from\s+'(\.[^']+)'/g)].map((match) => match[1]!);
      graph.set(
        normalize(file),
        statics.map((spec) => relative(SRC, join(SRC, dirname(file), spec)).replace(/\.js$/, '.ts')),
      );
    }
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(graph.size).toBeGreaterThan(40);
    expect(circles).toEqual([]);
  });
});

describe('the lines on stderr', () => {
  it('go through the one emit module, so a live display can keep them above its rows', () => {
    const offenders = sources('cli')
      .filter(({ file }) => file !== join('cli', 'output', 'emit.ts'))
      .filter(({ text }) => /\b(?:stderr|process\.stderr)\.write\(/.test(text))
      .map(({ file }) => file);
    expect(offenders).toEqual([]);
  });
});

describe('start-up', () => {
  it('printing a failure loads no socket module: the hints take the scheme words, not the probes', () => {
    const hints = readFileSync(join(SRC, 'cli', 'hints.ts'), 'utf8');
    expect(hints).not.toContain('scheme-probe');
    const words = readFileSync(join(SRC, 'client', 'scheme-words.ts'), 'utf8');
    expect(words).not.toMatch(/^import /m);
  });
});

/**
 * The modules allowed to load code later (a dynamic `import()` or a `createRequire`): the named
 * seams of docs/ARCHITECTURE.md, "Load rules". Anywhere else a module is imported statically,
 * so what a command loads can be read from the imports and the seams alone.
 */
const SEAMS = new Set(
  [
    'cli/program.ts', // the commands: a command's module when it is named
    'cli/lazy.ts', // the command line's heavy parts
    'sync/lazy.ts', // a sync's pass, dry run and watcher
    'service/store/open.ts', // the store drivers
    'service/ingest-threads.ts', // the service's ingest threads
    'scan/pool.ts', // the scan's read threads
    'client/undici.ts', // the transport: undici's two parts
    'cli/output/html-land.ts', // the map's land (world-atlas's JSON), only when a page is written
    // The scan's face loads the scan, a source its format's reader, the readers their parsers,
    // on first use (the scan's own section).
    'scan/index.ts',
    'scan/sources/formats.ts',
    'scan/sources/tar.ts',
    'scan/archive/tar-guard.ts',
    'scan/archive/photo-details.ts',
    'scan/extract/timezone.ts',
    'scan/extract/xmp.ts',
    'scan/extract/takeout.ts',
  ].map((file) => join(...file.split('/'))),
);

/** Whether a source loads code later: an `import()` that is not a type, or a createRequire. */
function loadsLater(text: string): boolean {
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(?:export\s+)?type\s/.test(line))
    .join('\n')
    .replace(/typeof\s+import\(/g, '')
    .replace(/:\s*import\(/g, '');
  return /\bimport\s*\(/.test(code) || /\bcreateRequire\b/.test(code);
}

describe('load seams', () => {
  it('only the named seams import a module later; everything else imports statically', () => {
    const offenders = sources('.')
      .filter(({ file, text }) => !SEAMS.has(file) && loadsLater(text))
      .map(({ file }) => file);
    expect(offenders).toEqual([]);
  });

  it('the check sees a dynamic import and a createRequire, and passes a type-only import()', () => {
    expect(loadsLater("const m = await import('./x.js');")).toBe(true);
    expect(loadsLater('const r = createRequire(import.meta.url);')).toBe(true);
    expect(loadsLater("type M = typeof import('./x.js');\nlet x: import('./y.js').Y;")).toBe(false);
  });

  it("the command line's and the sync's seams import nothing but types: they sit in no circle", () => {
    for (const file of ['cli/lazy.ts', 'sync/lazy.ts']) {
      const text = readFileSync(join(SRC, ...file.split('/')), 'utf8');
      expect(text.match(/^import (?!type ).*$/gm) ?? [], file).toEqual([]);
    }
  });
});
