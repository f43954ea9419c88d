/**
 * Pure reading of export part names, and of the gaps in the parts given to one run.
 *
 * - Google Takeout numbers its parts: `takeout-20250101T000000Z-001.zip`, and since 2025 with
 *   a batch segment, `takeout-20250101T000000Z-1-001.zip` (parts numbered within the batch).
 *   The name never says how many parts there are: a gap is a number below the highest given.
 * - An iCloud Photos export (privacy.apple.com) says `iCloud Photos Part 2 of 5.zip`, in the
 *   account's language (`iCloud Fotos Teil 2 von 5`, `Photos iCloud Partie 2 sur 5`, …): every
 *   number from 1 to the total must be there.
 *
 * The same part given twice (a zip and its unzipped folder, a download renamed `… (1).zip`)
 * counts once. Only names shaped exactly like these are parts: anything else says nothing.
 */

/** One part of an export, as its name says. */
export interface ExportPart {
  export: 'takeout' | 'icloud';
  /** The parts of one export share it: the name without its number (lower case). */
  series: string;
  /** How the series is shown: `takeout-20250101T000000Z` or `iCloud Photos`. */
  label: string;
  number: number;
  /** The number of parts, when the name says it (iCloud); null for Takeout. */
  total: number | null;
}

/** An export whose given parts leave out some numbers. */
export interface PartGap {
  export: 'takeout' | 'icloud';
  label: string;
  /** The numbers given, ascending. */
  given: number[];
  /** The numbers missing, ascending. */
  missing: number[];
  /** The number of parts, when the names say it. */
  total: number | null;
}

/** Extensions a part is downloaded with; an unzipped part is a folder of the same name. */
const PART_EXTENSION = /\.(zip|tgz|tar\.gz|tar)$/i;
/** A browser's suffix for a file downloaded again: `name (1).zip`, `name-1.zip` is not one. */
const DOWNLOAD_COPY = /\s+\(\d{1,3}\)$/;
/** No export has this many parts: a larger number is not a part number. */
const MAX_PARTS = 10_000;

const TAKEOUT = /^(takeout-\d{8}T\d{6}Z)(?:-(\d{1,3}))?-(\d{3,4})$/i;

/**
 * The word before the part number and the one between it and the total, in the languages
 * Apple's Data and Privacy exports are written in. Matched in lower case.
 */
const PART_WORDS = [
  'part', // English, Danish ("Part"), Catalan
  'teil', // German
  'partie', // French
  'parte', // Spanish, Italian, Portuguese
  'deel', // Dutch
  'del', // Swedish, Norwegian, Danish
  'osa', // Finnish
  'część', // Polish
  'část', // Czech
  'časť', // Slovak
  'rész', // Hungarian
  'bölüm', // Turkish
  'parça', // Turkish
  'dio', // Croatian
  'partea', // Romanian
  'μέρος', // Greek
  'часть', // Russian
  'частина', // Ukrainian
  'חלק', // Hebrew
  'ส่วนที่', // Thai
  'phần', // Vietnamese
  'bagian', // Indonesian
  'bahagian', // Malay
] as const;
const OF_WORDS = [
  'of',
  'von',
  'sur',
  'de',
  'di',
  'do',
  'van',
  'av',
  'af',
  'z',
  'ze',
  'zo',
  'из',
  'з',
  'από',
  'od',
  'din',
  'ile',
  'dari',
  'daripada',
  'จาก',
  'trên',
  'מתוך',
  '/',
];

const literal = (word: string): string => word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const ICLOUD = new RegExp(
  `^(.*?icloud.*?)[\\s_-]+(?:${PART_WORDS.map(literal).join('|')})[\\s_]+(\\d{1,4})(?:[\\s_]*(?:${OF_WORDS.map(literal).join('|')})[\\s_]*)(\\d{1,4})$`,
  'iu',
);
/** Languages that put the numbers first (`iCloud 写真 1/5`, `iCloud 사진 1/5 부분`): `K/N` after a name with iCloud. */
const ICLOUD_SLASH = /^(.*?icloud.*?)[\s_-]+(\d{1,4})\s*\/\s*(\d{1,4})(?:\s+\S+)?$/iu;

/** Every part's name says which export it is of: most names are ruled out by this alone. */
const MAY_BE_PART = /takeout|icloud/i;

/** The part a file or folder name says it is, or null when it names none. */
export function parsePartName(name: string): ExportPart | null {
  if (!MAY_BE_PART.test(name)) return null;
  const stem = name
    .normalize('NFC')
    .replace(/\u00a0/g, ' ')
    .trim()
    .replace(PART_EXTENSION, '')
    .replace(DOWNLOAD_COPY, '');
  const takeout = TAKEOUT.exec(stem);
  if (takeout) {
    const number = Number(takeout[3]);
    if (number < 1) return null;
    const label = takeout[2] === undefined ? takeout[1]! : `${takeout[1]}-${takeout[2]}`;
    return { export: 'takeout', series: label.toLowerCase(), label, number, total: null };
  }
  const icloud = ICLOUD.exec(stem) ?? ICLOUD_SLASH.exec(stem);
  if (icloud) {
    const number = Number(icloud[2]);
    const total = Number(icloud[3]);
    if (number < 1 || total < number || total > MAX_PARTS) return null;
    const label = icloud[1]!.trim();
    // The total joins the series: two exports of one account differ in it far more often than not.
    return { export: 'icloud', series: `${label.toLowerCase()}#${total}`, label, number, total };
  }
  return null;
}

/**
 * The exports among `names` whose parts leave gaps: for Takeout, the numbers below the
 * highest given; for iCloud, every number up to the total its names state. An export given
 * whole is not listed. Sorted by label.
 */
export function findPartGaps(names: Iterable<string>): PartGap[] {
  const series = new Map<string, { part: ExportPart; numbers: Set<number> }>();
  for (const name of names) {
    const part = parsePartName(name);
    if (part === null) continue;
    const known = series.get(part.series);
    if (known) known.numbers.add(part.number);
    else series.set(part.series, { part, numbers: new Set([part.number]) });
  }
  const gaps: PartGap[] = [];
  for (const { part, numbers } of series.values()) {
    const given = [...numbers].sort((a, b) => a - b);
    const last = part.total ?? given[given.length - 1]!;
    const missing: number[] = [];
    for (let n = 1; n <= last; n++) if (!numbers.has(n)) missing.push(n);
    if (missing.length > 0) gaps.push({ export: part.export, label: part.label, given, missing, total: part.total });
  }
  return gaps.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

/** Missing numbers a summary line names before it counts the rest. */
const SHOWN_NUMBERS = 20;

/** `takeout-20250101T000000Z: part 2 and 4 missing` / `iCloud Photos (5 parts): part 3 missing`, for summaries. */
export function describePartGap(gap: PartGap): string {
  return `${gap.label}: ${describeMissing(gap)}`;
}

/** The numbers a gap leaves out, without the export's name: `parts 002 and 003 missing`, `part 2 of 5 missing`. */
export function describeMissing(gap: PartGap): string {
  const shown = gap.missing.slice(0, SHOWN_NUMBERS);
  const numbers = shown.map((n) => (gap.export === 'takeout' ? String(n).padStart(3, '0') : String(n)));
  const more = gap.missing.length - shown.length;
  if (more > 0) numbers.push(`${more} more`);
  const list =
    numbers.length === 1 ? numbers[0]! : `${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
  const of = gap.total === null ? '' : ` of ${gap.total}`;
  return `part${numbers.length === 1 ? '' : 's'} ${list}${of} missing`;
}

/**
 * The folder of an iCloud export a file on disk lies in, which keys its `Photo Details` rows
 * (photo-details.ts): the nearest folder named as a part (`iCloud Photos Part 1 of 3`, unzipped
 * where it was downloaded), else the nearest whose name says iCloud (`iCloud Photos`); null
 * for a file in no such folder, which no CSV describes. POSIX or Windows separators.
 */
export function icloudFolderOf(filePath: string): string | null {
  const parts = filePath.split(/[\\/]/);
  let named: number | null = null;
  for (let i = parts.length - 2; i >= 0; i--) {
    const name = parts[i]!;
    if (parsePartName(name)?.export === 'icloud') return parts.slice(0, i + 1).join('/');
    if (named === null && /icloud/i.test(name)) named = i;
  }
  return named === null ? null : parts.slice(0, named + 1).join('/');
}
