/**
 * The words scan and sync share, so a user reads the same thing in both: counts with their
 * plural, rejection reasons spelled as the contract's codes (as in `--json` and the report),
 * and "unreadable" (could not be read: permissions, I/O) kept apart from "damaged" (read,
 * but its content is damaged or cannot be used).
 */

/** `1 file`, `2 files`: the one plural helper (src/util/plural.ts), for the command line too. */
import { plural } from '../../util/plural.js';

export { plural };

/** `missing_coordinates 3, missing_taken_at 1`: every reason given, zeros included, in a fixed order. */
export function reasonList<K extends string>(counts: Record<K, number>, order: readonly K[]): string {
  return order.map((reason) => `${reason} ${counts[reason]}`).join(', ');
}

/** `4 (missing_coordinates 3, missing_taken_at 1)`: the total first, then each reason. */
export function reasonTotal<K extends string>(counts: Record<K, number>, order: readonly K[]): string {
  const total = order.reduce((sum, reason) => sum + counts[reason], 0);
  return `${total} (${reasonList(counts, order)})`;
}

/** The files that could not be used, in words: `1 file could not be read and 4 are damaged`; null when none. */
export function unusableFiles(unreadable: number, damaged: number): string | null {
  const one = damaged === 1;
  if (unreadable > 0 && damaged > 0)
    return `${plural(unreadable, 'file')} could not be read and ${damaged} ${one ? 'is' : 'are'} damaged`;
  if (unreadable > 0) return `${plural(unreadable, 'file')} could not be read`;
  if (damaged > 0) {
    return `${plural(damaged, 'file')} ${one ? 'is' : 'are'} damaged (read, but no metadata could be taken from ${one ? 'it' : 'them'})`;
  }
  return null;
}

/** `, 2 archives not opened (…)` after a watch line, or '' when every archive met was read. */
export function closedArchives(count: number): string {
  if (count === 0) return '';
  return `, ${plural(count, 'archive')} not opened (add --archives to read ${count === 1 ? 'it' : 'them'} in place)`;
}
