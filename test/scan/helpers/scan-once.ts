/**
 * One scan of a folder with a given cache folder, in its own process (two at once share a
 * cache the way two `camroll scan` runs would). Prints one JSON line per record: path, id or
 * error code, and whether it came from the cache.
 */
import { scanLibrary } from '../../../src/scan/scan.js';

const [root, cacheDir] = process.argv.slice(2);
if (root === undefined || cacheDir === undefined) throw new Error('usage: scan-once <root> <cacheDir>');
const lines: string[] = [];
const warnings: string[] = [];
for await (const event of scanLibrary({ roots: [root], cacheDir, workers: 2 })) {
  if (event.type === 'warning') warnings.push(`${event.code}: ${event.message}`);
  if (event.type !== 'record') continue;
  const { record } = event;
  lines.push(
    JSON.stringify({
      path: record.path,
      id: record.media?.id ?? null,
      error: record.error?.code ?? null,
      cached: record.cached,
    }),
  );
}
process.stdout.write(`${JSON.stringify({ warnings })}\n${lines.join('\n')}\n`);
