import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { wholeNumber } from './flag-values.js';
import {
  createExcludeMatcher,
  DEFAULT_INCLUDED,
  ORIGIN_CLASSES,
  parseInclude,
  type OriginClass,
} from '../scan/index.js';

/** The options of the walk and the extraction, the same for `scan` and `sync`. */
export interface ScanOptions {
  exclude: string[];
  followSymlinks: boolean;
  /** Open archives met while walking a folder (archives given as arguments are always read). */
  archives: boolean;
  cache: boolean;
  workers?: number;
  /** The origin classes sent (`--include`): own and unknown, and the classes named. */
  included: ReadonlySet<OriginClass>;
}

const MAX_WORKERS = 64;

function collectInclude(value: string, previous: string[]): string[] {
  const parsed = parseInclude([value]);
  if ('unknown' in parsed)
    throw new UsageError(`--include: unknown class '${parsed.unknown}' (one of ${ORIGIN_CLASSES.join(', ')}, or all)`);
  return [...previous, value];
}

function collect(value: string, previous: string[]): string[] {
  if (value.length === 0) throw new UsageError('--exclude needs a non-empty glob');
  createExcludeMatcher([value]); // one that cannot be compiled stops here, before any work
  return [...previous, value];
}

/**
 * Adds `--exclude` (repeatable), `--follow-symlinks`, `--no-cache` and `--workers`: a library
 * previewed with `scan` is synced with the same filter.
 */
export function addScanOptions(cmd: Command): Command {
  return cmd
    .option('--exclude <glob>', 'leave out files or folders matching this glob (repeatable)', collect, [])
    .option('--follow-symlinks', 'walk into symlinked folders (each real folder once)')
    .option(
      '--archives',
      'also read .zip, .tgz/.tar.gz and .tar files met in the folders in place (named ones are always read)',
    )
    .option('--no-cache', 'read every file again instead of using the scan cache')
    .option(
      '--include <classes>',
      `also send files of these origins, comma-separated (repeatable): ${ORIGIN_CLASSES.filter((c) => !DEFAULT_INCLUDED.has(c)).join(', ')}, or all (default: own and unknown; pairs collapsed)`,
      collectInclude,
      [],
    )
    .addOption(
      new Option('--workers <n>', `hashing threads, 1 to ${MAX_WORKERS} (default: one per core, at most 4)`).argParser(
        wholeNumber('--workers', 1, MAX_WORKERS),
      ),
    );
}

/** Reads the scan options out of commander's values. */
export function scanOptionsFrom(raw: Record<string, unknown>): ScanOptions {
  return {
    exclude: (raw.exclude as string[] | undefined) ?? [],
    followSymlinks: raw.followSymlinks === true,
    archives: raw.archives === true,
    cache: raw.cache !== false,
    included: includedFrom(raw.include),
    ...(typeof raw.workers === 'number' ? { workers: raw.workers } : {}),
  };
}

/** The classes sent, from `--include`'s values (checked as they were collected). */
function includedFrom(values: unknown): ReadonlySet<OriginClass> {
  const parsed = parseInclude(Array.isArray(values) ? (values as string[]) : []);
  return 'included' in parsed ? parsed.included : DEFAULT_INCLUDED;
}
