import { request, type Dispatcher } from 'undici';
import { describeTransportFailure, transportFailureCode } from '../client/http-errors.js';
import { readHostAnswer, redact } from '../client/scrub.js';
import { API_KEY_HEADER } from '../contract/index.js';

/** What a raw request gave: the facts the API client hides (content type, Date, timing). */
export type ProbeResult =
  | {
      kind: 'answer';
      status: number;
      contentType: string | null;
      date: string | null;
      body: string;
      json: unknown;
      ms: number;
    }
  | { kind: 'no_answer'; code: string; message: string; ms: number };

export interface ProbeOptions {
  dispatcher?: Dispatcher;
  timeoutMs: number;
  now: () => number;
}

/** Sends one request as the client would (the key in its header), and keeps every fact. */
export async function probe(
  method: 'GET' | 'POST',
  url: string,
  apiKey: string | null,
  body: unknown,
  options: ProbeOptions,
): Promise<ProbeResult> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (apiKey !== null) headers[API_KEY_HEADER] = apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const started = options.now();
  try {
    const response = await request(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
    // Scrubbed of the key as it is read, like every answer the client reads (src/client/scrub.ts).
    const answer = await readHostAnswer(response, apiKey);
    const text = answer.bodyText;
    const header = (name: string): string | null => {
      const value = answer.headers[name];
      return (Array.isArray(value) ? value[0] : value) ?? null;
    };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return {
      kind: 'answer',
      status: answer.status,
      contentType: header('content-type'),
      date: header('date'),
      body: text,
      json,
      ms: options.now() - started,
    };
  } catch (error) {
    const source = error as { message?: unknown };
    const code = transportFailureCode(error);
    // Only the code and message (undici errors can carry the request's headers), in the words
    // every other command uses for the same failure.
    const raw = typeof source.message === 'string' ? source.message : code;
    const message = redact(describeTransportFailure(code, raw, options.timeoutMs), apiKey);
    return { kind: 'no_answer', code, message, ms: options.now() - started };
  }
}

/** `text/html: "<!DOCTYPE html>…"`: what came back instead of JSON. */
export function describeBody(result: Extract<ProbeResult, { kind: 'answer' }>): string {
  const start = result.body.replace(/\s+/g, ' ').trim().slice(0, 40);
  const type = result.contentType?.split(';')[0]?.trim() ?? 'no content type';
  return start === '' ? `${type}, empty` : `${type}: ${JSON.stringify(start)}${result.body.length > 40 ? '…' : ''}`;
}
