/**
 * Metadata text as a person would read it: cut at the first NUL (EXIF strings end there;
 * what follows is garbage from the camera's buffer), control characters dropped, trimmed;
 * empty becomes null.
 */
export function cleanText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const nul = value.indexOf('\u0000');
  // eslint-disable-next-line no-control-regex
  const text = (nul < 0 ? value : value.slice(0, nul)).replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
  return text === '' ? null : text;
}
