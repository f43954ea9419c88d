// A module loader hook: appends the URL of every module loaded to the file it is given.
import { appendFileSync } from 'node:fs';

let file = null;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, next) {
  if (file !== null && !url.startsWith('node:')) appendFileSync(file, `${url}\n`);
  return next(url, context);
}
