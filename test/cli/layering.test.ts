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

describe('start-up', () => {
  it('printing a failure loads no socket module: the hints take the scheme words, not the probes', () => {
    const hints = readFileSync(join(SRC, 'cli', 'hints.ts'), 'utf8');
    expect(hints).not.toContain('scheme-probe');
    const words = readFileSync(join(SRC, 'client', 'scheme-words.ts'), 'utf8');
    expect(words).not.toMatch(/^import /m);
  });
});
