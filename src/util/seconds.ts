/**
 * A duration in seconds, to a tenth, as every summary, notice and error shows one: `12.3 s`.
 * `short` drops a tenth of zero (`30 s`), for a limit the user gave in whole seconds (`--timeout`).
 * Here, below src/cli, so that the client's and doctor's messages word a duration alike.
 */
export function formatSeconds(ms: number, options: { short?: boolean } = {}): string {
  const tenths = Math.round(ms / 100);
  const text = options.short === true && tenths % 10 === 0 ? String(tenths / 10) : (tenths / 10).toFixed(1);
  return `${text} s`;
}
