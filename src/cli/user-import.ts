/**
 * One line of a user import file, as a partner exports it from its own database: CSV with an
 * e-mail and a user id column (a header naming them is optional; without one, e-mail first),
 * or JSON lines `{"email": …, "user_id": …}`.
 */
export type DirectoryLine =
  | { kind: 'blank' }
  | { kind: 'header'; emailIndex: number; idIndex: number }
  | { kind: 'entry'; email: string; userId: string }
  | { kind: 'bad'; reason: string };

const EMAIL_NAMES = new Set(['email', 'e-mail', 'email_address', 'emailaddress', 'mail']);
const ID_NAMES = new Set(['user_id', 'userid', 'user id', 'id', 'uuid', 'camroll_user_id', 'service_user_id']);

/** Splits one CSV record (RFC 4180 quoting; a field never spans lines here). */
export function splitCsv(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field.trim() === '') {
      quoted = true;
      field = '';
    } else if (c === ',' || c === ';' || c === '\t') {
      fields.push(field.trim());
      field = '';
    } else field += c;
  }
  fields.push(field.trim());
  return fields;
}

function fromJson(line: string): DirectoryLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'bad', reason: 'not a JSON object' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'bad', reason: 'not a JSON object' };
  const record = value as Record<string, unknown>;
  const email = record.email;
  const userId = record.user_id ?? record.userId;
  if (typeof email !== 'string' || typeof userId !== 'string') return { kind: 'bad', reason: 'needs string members "email" and "user_id"' };
  return { kind: 'entry', email: email.trim(), userId: userId.trim() };
}

/**
 * Reads one line. `header` is the header seen on the first line, if any; pass null for the
 * first line itself, which may be one.
 */
export function parseDirectoryLine(line: string, header: Extract<DirectoryLine, { kind: 'header' }> | null): DirectoryLine {
  const text = line.replace(/^\uFEFF/, '').trim();
  if (text === '') return { kind: 'blank' };
  if (text.startsWith('{')) return fromJson(text);
  const fields = splitCsv(text);
  if (header === null) {
    const names = fields.map((f) => f.toLowerCase());
    const emailIndex = names.findIndex((n) => EMAIL_NAMES.has(n));
    const idIndex = names.findIndex((n) => ID_NAMES.has(n));
    if (emailIndex >= 0 && idIndex >= 0) return { kind: 'header', emailIndex, idIndex };
    if (emailIndex >= 0 || idIndex >= 0) return { kind: 'bad', reason: 'a header needs both an e-mail and a user_id column' };
  }
  const emailIndex = header?.emailIndex ?? 0;
  const idIndex = header?.idIndex ?? 1;
  const email = fields[emailIndex];
  const userId = fields[idIndex];
  if (email === undefined || userId === undefined || email === '' || userId === '') {
    return { kind: 'bad', reason: 'needs an e-mail and a user id' };
  }
  return { kind: 'entry', email, userId };
}
