/**
 * The e-mails of a directory close enough to a wanted one to be a typo of it, for a "did you
 * mean …?" line: at most two edits (a letter wrong, missing, added, or two swapped), one for
 * short addresses; only the closest (one edit away hides those two away).
 */
export function nearEmails(wanted: string, candidates: Iterable<string>, limit = 3): string[] {
  const target = wanted.trim().toLowerCase();
  const most = target.length < 6 ? 1 : 2;
  const found: { email: string; distance: number }[] = [];
  for (const candidate of candidates) {
    if (candidate === target || Math.abs(candidate.length - target.length) > most) continue;
    const distance = editDistance(target, candidate, most);
    if (distance <= most) found.push({ email: candidate, distance });
  }
  const closest = Math.min(...found.map((f) => f.distance));
  return found
    .filter((f) => f.distance === closest)
    .sort((a, b) => a.email.localeCompare(b.email))
    .slice(0, limit)
    .map((f) => f.email);
}

/**
 * Edits between two strings, a swap of neighbours counting as one (optimal string alignment);
 * anything past `most` is returned as `most + 1`, so a long directory costs little.
 */
export function editDistance(a: string, b: string, most = Number.POSITIVE_INFINITY): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (before[j - 2] as number) + 1);
      current.push(value);
      rowBest = Math.min(rowBest, value);
    }
    if (rowBest > most) return most + 1;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length] as number, most + 1);
}
