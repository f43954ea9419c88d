/** Keys shorter than this are shown as dots only: their last 4 would give away too much. */
const MIN_LENGTH_TO_HINT = 12;

/** Shows a key as `••••` plus its last four characters, enough to tell two keys apart. */
export function maskKey(key: string | null | undefined): string | null {
  if (!key) return null;
  return key.length >= MIN_LENGTH_TO_HINT ? `••••${key.slice(-4)}` : '••••';
}
