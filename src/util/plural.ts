/**
 * The one plural of camroll's messages, wherever they are worded (the command line, the sync
 * session's notices, doctor's checks): `1 file`, `2 files`; `plural(2, 'batch', 'batches')`.
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
