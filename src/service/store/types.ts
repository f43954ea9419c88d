import type { Environment } from '../../contract/service.js';
import type { CursorPosition } from '../cursor.js';

/** The (partner, environment) pair a user belongs to. */
export interface Scope {
  partnerId: string;
  environment: Environment;
}

export interface UserRow {
  id: string;
  partner_id: string;
  environment: string;
  email: string;
  partner_user_id: string | null;
  first_name: string | null;
  last_name: string | null;
  phone_number: string | null;
  address_json: string | null;
  created_at: string;
  has_synced: number;
  last_sync_at_ms: number | null;
}

export interface NewUser {
  /** Already trimmed and lower-cased. */
  email: string;
  partnerUserId?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
  phoneNumber?: string | undefined;
  address?: Record<string, string> | undefined;
}

/** A matched item as stored. `taken_at` is kept as sent; `taken_at_ms` orders it. */
export interface StoredMedia {
  media_id: string;
  event_id: number;
  taken_at: string;
  taken_at_ms: number;
  media_type: 'photo' | 'video';
  thumbnail_url: string | null;
}

/** A stored match read back in the wire EventMedia shape: a thumbnail never sent is absent. */
export interface MatchedMediaRow {
  media_id: string;
  taken_at: string;
  media_type: 'photo' | 'video';
  thumbnail_url?: string;
}

export interface UserEventRow {
  event_id: number;
  starts_at_ms: number;
  media_count: number;
}

/** The service's persistence. Every method is synchronous; `read`/`write` wrap a transaction. */
export interface Store {
  /** Runs `fn` in one deferred transaction: every read inside sees one snapshot. */
  read<T>(fn: () => T): T;
  /** Runs `fn` in one immediate (write-locking) transaction. */
  write<T>(fn: () => T): T;
  /** The per-database secret that signs page cursors (created on first use). */
  cursorSecret(): Buffer;
  createUser(input: NewUser, scope: Scope, nowIso: string): { user: UserRow; existing: boolean };
  findUser(userId: string, scope: Scope): UserRow | null;
  userState(userId: string): { hasSynced: boolean; lastSyncAtMs: number | null };
  /** Advances last_sync_at to max(stored, now) and returns it; optionally sets has_synced. */
  touch(userId: string, nowMs: number, markSynced: boolean): number;
  matchedEventOf(userId: string, mediaId: string): number | null;
  upsertMatch(userId: string, media: StoredMedia): void;
  /** Removes the stored matches of these ids; returns the events they were on (one per removed row). */
  removeMatches(userId: string, mediaIds: readonly string[]): number[];
  /** Recomputes a user's entry for one event from its matches (drops it at zero media). */
  refreshUserEvent(userId: string, eventId: number, startsAtMs: number | null): void;
  /** The media of several events in one query, each list in taken_at order. */
  eventsMedia(userId: string, eventIds: readonly number[]): Map<number, MatchedMediaRow[]>;
  pageEvents(userId: string, after: CursorPosition | null, limit: number): UserEventRow[];
  countEvents(userId: string): number;
  eventIds(userId: string): number[];
  close(): void;
}
