import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileProgress, formatDuration } from '../../../src/cli/output/progress.js';
import { formatCounts } from '../../../src/cli/output/scan-summary.js';

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [9.4, '9s'],
    [75, '1m15s'],
    [3599, '59m59s'],
    [3725, '1h02m'],
    [-3, '0s'],
  ])('%d s -> %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});

describe('formatCounts', () => {
  it('lists the largest first, ties by name', () => {
    expect(formatCounts({ b: 1, a: 1, c: 5 })).toBe('c 5, a 1, b 1');
    expect(formatCounts({})).toBe('');
  });
});

describe('plain progress lines (stderr is not a terminal)', () => {
  // The display prints on an interval: fake timers step it, no real waiting.
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('prints rates and, once the walk is done, the total and an ETA', () => {
    const stream = new PassThrough();
    let output = '';
    stream.on('data', (d: Buffer) => (output += d.toString()));
    let now = 0;
    const progress = createFileProgress({ stream, isTTY: false, label: 'scan', intervalMs: 5, now: () => now });
    now = 2000;
    for (let i = 0; i < 10; i++) progress.tick(1_000_000);
    vi.advanceTimersByTime(5);
    expect(output).toContain('scan: 10/? files, 5.0 files/s, 5.0 MB/s, ETA listing…');
    progress.setTotal(20);
    output = '';
    vi.advanceTimersByTime(5);
    expect(output).toContain('scan: 10/20 files, 5.0 files/s, 5.0 MB/s, ETA 2s');
    progress.stop();
    output = '';
    vi.advanceTimersByTime(50);
    expect(output).toBe('');
  });

  it('shows a total that is still growing as such, with no ETA until the listing is over', () => {
    const stream = new PassThrough();
    let output = '';
    stream.on('data', (d: Buffer) => (output += d.toString()));
    let now = 0;
    const progress = createFileProgress({ stream, isTTY: false, label: 'scan', intervalMs: 5, now: () => now });
    now = 1000;
    progress.tick(0);
    progress.setTotal(500, false);
    vi.advanceTimersByTime(5);
    expect(output).toContain('scan: 1/500+ files, 1.0 files/s, 0.0 MB/s, ETA listing…');
    progress.setTotal(504, true);
    output = '';
    vi.advanceTimersByTime(5);
    expect(output).toContain('scan: 1/504 files, 1.0 files/s, 0.0 MB/s, ETA 8m23s');
    progress.stop();
  });

  it('follows the bytes when an export gives them up front: an ETA before the file total is final', () => {
    const stream = new PassThrough();
    let output = '';
    stream.on('data', (d: Buffer) => (output += d.toString()));
    let now = 0;
    const progress = createFileProgress({ stream, isTTY: false, label: 'scan', intervalMs: 5, now: () => now });
    progress.setBytes({ done: 0, total: 1_000_000_000, cached: 0 });
    now = 4000;
    // Ten photos of 10 MB, then one 400 MB video: by files the ETA would be far too short.
    for (let i = 0; i < 10; i++) progress.tick(10_000_000);
    progress.tick(400_000_000);
    progress.setTotal(11, false);
    progress.setBytes({ done: 500_000_000, total: 1_000_000_000, cached: 0 });
    vi.advanceTimersByTime(5);
    expect(output).toContain('scan: 11/11+ files, 2.8 files/s, 125.0 MB/s, ETA 4s');
    progress.stop();
  });

  it('counts bytes served from the cache as done but not in the rate, so a re-scan does not promise the rest at its speed', () => {
    const stream = new PassThrough();
    let output = '';
    stream.on('data', (d: Buffer) => (output += d.toString()));
    let now = 0;
    const progress = createFileProgress({ stream, isTTY: false, label: 'scan', intervalMs: 5, now: () => now });
    now = 4000;
    // 400 MB from the cache at once, then 100 MB read in 4 s: 25 MB/s, 500 MB left.
    progress.setBytes({ done: 500_000_000, total: 1_000_000_000, cached: 400_000_000 });
    vi.advanceTimersByTime(5);
    expect(output).toContain('ETA 20s');
    progress.stop();
  });

  it('never shows a total that went backwards, nor one below the files done', () => {
    const stream = new PassThrough();
    let output = '';
    stream.on('data', (d: Buffer) => (output += d.toString()));
    const progress = createFileProgress({ stream, isTTY: false, label: 'scan', intervalMs: 5, now: () => 1000 });
    progress.setTotal(500, false);
    vi.advanceTimersByTime(5);
    expect(output).toContain('scan: 0/500+ files');
    progress.setTotal(300, false);
    output = '';
    vi.advanceTimersByTime(5);
    expect(output).toContain('scan: 0/500+ files');
    for (let i = 0; i < 3; i++) progress.tick(0);
    progress.setTotal(2, true);
    output = '';
    vi.advanceTimersByTime(5);
    expect(output).toContain('scan: 3/500 files');
    progress.stop();
  });
});
