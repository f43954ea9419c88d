import type { Dispatcher } from 'undici';

/**
 * The one place the API key is scrubbed from what a host sends back. A host may echo the key
 * (a proxy's 503 page quoting the request headers, an error envelope whose `code` or `details`
 * repeat it, a body that lists it): every answer is read through `readHostAnswer`, so the
 * status line, headers and body that messages, `--json` output, `--verbose`/`--debug` traces,
 * log files and reports are built from never hold it. Transport failures (undici's and the
 * system's text) go through `redact` where they are worded.
 */

/** What stands in for the key wherever a host's text held it. */
export const REDACTED = '[redacted]';

/** The forms a key takes in a host's text: as is, inside a JSON string, percent-encoded. */
function keyForms(secret: string): string[] {
  const forms = new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
  return [...forms].filter((form) => form !== '');
}

/** Removes a secret, in each form it may take, from text that may end up on a terminal or in a log. */
export function redact(text: string, secret: string | null | undefined): string {
  if (!secret) return text;
  let out = text;
  for (const form of keyForms(secret)) if (out.includes(form)) out = out.split(form).join(REDACTED);
  return out;
}

/** Whether a text holds the secret in any of its forms. */
function holds(text: string, secret: string): boolean {
  return keyForms(secret).some((form) => text.includes(form));
}

/** Every string of a parsed JSON value (member names too) scrubbed. */
function scrubValue(value: unknown, secret: string): unknown {
  if (typeof value === 'string') return redact(value, secret);
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, secret));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(value)) out[redact(name, secret)] = scrubValue(member, secret);
    return out;
  }
  return value;
}

/**
 * A body with the secret scrubbed. A JSON body is scrubbed string by string and written again,
 * so it stays JSON (and a key that happens to look like a number never breaks one); any other
 * body as text. A body that does not hold the key is returned as it came, unparsed.
 */
export function scrubBody(text: string, secret: string | null | undefined): string {
  if (!secret || !holds(text, secret)) return text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return redact(text, secret);
  }
  return JSON.stringify(scrubValue(json, secret));
}

/** Response headers with the secret scrubbed from every value. */
export function scrubHeaders(
  headers: Record<string, string | string[] | undefined>,
  secret: string | null | undefined,
): Record<string, string | string[] | undefined> {
  if (!secret) return headers;
  const out: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = Array.isArray(value) ? value.map((v) => redact(v, secret)) : value && redact(value, secret);
  }
  return out;
}

/** A host's answer as camroll may show it: status, headers and body, none of them holding the key. */
export interface HostAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bodyText: string;
}

/** Reads a response whole and scrubs it of the key it was sent with. */
export async function readHostAnswer(
  response: Dispatcher.ResponseData,
  secret: string | null | undefined,
): Promise<HostAnswer> {
  const bodyText = await response.body.text();
  return {
    status: response.statusCode,
    headers: scrubHeaders(response.headers, secret),
    bodyText: scrubBody(bodyText, secret),
  };
}
