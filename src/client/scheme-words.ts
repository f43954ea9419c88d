/**
 * The words for a base URL whose scheme is not what its server speaks: plain string functions,
 * apart from the probes (scheme-probe.ts), so printing a hint loads no socket module.
 */

/**
 * camroll's codes for the two mismatches (src/errors.ts, `schemeMismatch`), named in a type
 * only: this module loads no other.
 */
export type SchemeMismatch = import('../errors.js').SchemeMismatch;

/** `http://host:443/v1` for `https://host/v1`, and the reverse: the base URL with the other scheme, same port. */
export function otherSchemeUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const scheme = url.protocol === 'https:' ? 'http:' : 'https:';
  // Through URL again, so a port that is the new scheme's default is dropped.
  const other = new URL(`${scheme}//${url.hostname}:${port}${url.pathname}`).href;
  // URL writes a bare origin with a slash; the base URL as given may have none.
  return url.pathname === '/' && !baseUrl.endsWith('/') ? other.replace(/\/$/, '') : other;
}

/** What the server speaks, in words: `the server speaks plain HTTP, not TLS`. */
export function describeMismatch(mismatch: SchemeMismatch): string {
  return mismatch === 'server_speaks_plain_http'
    ? 'the server speaks plain HTTP, not TLS'
    : 'the server speaks TLS, not plain HTTP';
}

/** The fix, in words: `the server speaks plain HTTP: did you mean http://host:8787/v1?`. */
export function mismatchHint(mismatch: SchemeMismatch, baseUrl: string): string {
  const what = mismatch === 'server_speaks_plain_http' ? 'plain HTTP' : 'TLS';
  return `the server speaks ${what}: did you mean ${otherSchemeUrl(baseUrl)}?`;
}
