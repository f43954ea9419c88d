import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { traceOptions } from '../../scripts/options-trace.js';

const SCAN = join(import.meta.dirname, '..', '..', 'src', 'scan');

describe("the scan's shape (issue 27's acceptance)", () => {
  it("following scanLibraryBatches's options through the calls enters at most 10 files, returning at most 3 times", () => {
    const trace = traceOptions();
    const shown = trace.steps.map((step) => `${step.isReturn ? '↩' : '→'} ${step.to} ${step.callee}`).join('\n');
    expect(trace.files[0]).toBe(join('src', 'scan', 'scan.ts'));
    expect(trace.files.length, shown).toBeLessThanOrEqual(10);
    expect(trace.returns, shown).toBeLessThanOrEqual(3);
    // It does follow: the options reach the sources, the cache, the pool and the evidence stage.
    for (const file of ['sources/folder.ts', 'cache.ts', 'pool.ts', 'evidence/stage.ts'])
      expect(trace.files).toContain(join('src', 'scan', ...file.split('/')));
  }, 30_000);

  it('no function in src/scan is over 100 lines', () => {
    const long: string[] = [];
    for (const file of readdirSync(SCAN, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(join(SCAN, file), 'utf8');
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
      const visit = (node: ts.Node): void => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const lines =
            source.getLineAndCharacterOfPosition(node.end).line -
            source.getLineAndCharacterOfPosition(node.getStart()).line +
            1;
          if (lines > 100)
            long.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} (${lines})`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(long).toEqual([]);
  });
});

describe('the options trace', () => {
  const project = mkdtempSync(join(tmpdir(), 'camroll-trace-'));
  afterAll(() => rmSync(project, { recursive: true, force: true }));
  const put = (file: string, text: string): void => {
    mkdirSync(join(project, 'src', 'scan'), { recursive: true });
    writeFileSync(join(project, 'src', 'scan', file), text);
  };

  it('follows a value, a field, a destructured name, an assignment, a computed value and a callback, counts a return, and stops at a result', () => {
    put(
      'a.ts',
      `import { b, made } from './b.js';
       import { onlyResult } from './d.js';
       import { computed } from './e.js';
       import { Kept } from './f.js';
       export function start(options: { x: number; y: string; z: boolean }) {
         const { y } = options;
         const result = made();
         onlyResult(result);
         b({ x: options.x, then: () => y.length });
         computed(Math.max(options.x, 1));
         let z = false;
         z = options.z;
         new Kept(z);
       }
       export function back(value: number) { return value; }`,
    );
    put(
      'b.ts',
      `import { back } from './a.js';
       import { c } from './c.js';
       export function made() { return 1; }
       export function b(input: { x: number; then: () => number }) { c(input.x); back(input.then()); back(input.x); }`,
    );
    put('c.ts', 'export function c(n: number) { return n + 1; }');
    put('d.ts', 'export function onlyResult(n: number) { return n; }');
    put('e.ts', 'export function computed(n: number) { return n; }');
    put('f.ts', 'export class Kept { constructor(readonly z: boolean) {} }');
    const trace = traceOptions(join('src', 'scan', 'a.ts'), 'start', 'options', project);
    expect(trace.files).toEqual(['a.ts', 'b.ts', 'c.ts', 'e.ts', 'f.ts'].map((file) => join('src', 'scan', file)));
    // b.ts calls back into a.ts, which the trace had left: one return (the second call is the same way back).
    expect(trace.returns).toBe(1);
    expect(trace.steps.filter((step) => step.isReturn).map((step) => step.callee)).toEqual(['back']);
    expect(trace.reentries).toBe(2);
  });
});
