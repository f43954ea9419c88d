import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ServiceError } from './service-error.js';

/** Keyset position of the last event on a page: newest first by start instant, then id. */
export interface CursorPosition {
  startsAtMs: number;
  eventId: number;
}

const Payload = z.object({ s: z.number().int(), i: z.number().int() });

/** Signs and verifies page cursors with a per-database secret. */
export interface CursorCodec {
  encode(userId: string, position: CursorPosition): string;
  /** Throws 400 `invalid_cursor` for anything this server did not issue for this user. */
  decode(userId: string, cursor: string): CursorPosition;
}

/**
 * Cursors are `payload.mac`, both base64url. The MAC covers the user id too, so a cursor
 * from one user's listing is refused on another's.
 */
export function createCursorCodec(secret: Buffer): CursorCodec {
  const mac = (userId: string, payload: string): Buffer =>
    createHmac('sha256', secret).update(userId).update('\0').update(payload).digest();
  const invalid = (): ServiceError => new ServiceError('invalid_cursor', 'cursor was not issued by this server');
  return {
    encode(userId, position) {
      const payload = Buffer.from(JSON.stringify({ s: position.startsAtMs, i: position.eventId })).toString(
        'base64url',
      );
      return `${payload}.${mac(userId, payload).toString('base64url')}`;
    },
    decode(userId, cursor) {
      const parts = cursor.split('.');
      if (parts.length !== 2 || !parts[0] || !parts[1] || cursor.length > 512) throw invalid();
      const [payload, signature] = parts as [string, string];
      // Compare the canonical text, not decoded bytes: base64url decoding ignores stray bits,
      // so a changed last character could otherwise still verify.
      const expected = Buffer.from(mac(userId, payload).toString('base64url'));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      let json: unknown;
      try {
        json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalid();
      }
      const parsed = Payload.safeParse(json);
      if (!parsed.success) throw invalid();
      return { startsAtMs: parsed.data.s, eventId: parsed.data.i };
    },
  };
}
