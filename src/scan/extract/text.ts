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

/**
 * An EXIF text tag (Make, Model, LensModel) whatever TIFF type the writer chose: ASCII as
 * text; a number or numbers as exiftool prints them ("1234", "1 2"); BYTE/UNDEFINED bytes
 * as ASCII (up to the first NUL). Then cleaned as `cleanText`.
 */
export function tagText(value: unknown): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (value instanceof Uint8Array) return cleanText(new TextDecoder('latin1').decode(value));
  if (Array.isArray(value) && value.length <= 64 && value.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    return cleanText(value.join(' '));
  }
  return cleanText(value);
}
