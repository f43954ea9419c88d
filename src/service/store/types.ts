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

/** One batch to apply: each asset id once, with its final outcome. */
export interface IngestWrite {
  /** Distinct ids: `stored` set = upsert that match; null = it matches nothing now, drop any earlier match. */
  items: readonly { mediaId: string; stored: StoredMedia | null }[];
  /** Start instant of an event in the loaded catalog; null when the catalog no longer lists it. */
  startsOf(eventId: number): number | null;
  /** The service clock: last_sync_at becomes max(stored, nowMs). */
  nowMs: number;
  /** Events whose complete media the answer carries (earlier batches included). */
  readBack: readonly number[];
}

export interface IngestApplied {
  lastSyncAtMs: number;
  /** The media of each `readBack` event, taken_at ascending. */
  media: Map<number, MatchedMediaRow[]>;
}

export interface EventsPageQuery {
  after: CursorPosition | null;
  limit: number;
  includeMedia: boolean;
  /** Whether the loaded catalog shows an event: pages and totals count only those. */
  shown(eventId: number): boolean;
}

export interface StoredEventsPage {
  /** The user's shown events in all. */
  total: number;
  /** Up to `limit` shown events, newest first. */
  rows: UserEventRow[];
  hasMore: boolean;
  /** Each row's media when asked for, else null. */
  media: Map<number, MatchedMediaRow[]> | null;
}

export interface UserHistory {
  eventIds: number[];
  hasSynced: boolean;
  lastSyncAtMs: number | null;
}

/**
 * The service's persistence, the seam between routes and a database. Every method is one
 * transaction and returns a promise, so SQLite (one process) and PostgreSQL (several
 * instances on one database) serve the same routes. A store that cannot get its lock or
 * connection within its retry budget rejects with a 503 `service_unavailable` ServiceError.
 */
export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** The per-database secret that signs page cursors (created on first use, shared by every instance). */
  cursorSecret(): Promise<Buffer>;
  /** Idempotent on (partner, environment, e-mail), also under a race. */
  createUser(input: NewUser, scope: Scope, nowIso: string): Promise<{ user: UserRow; existing: boolean }>;
  findUser(userId: string, scope: Scope): Promise<UserRow | null>;
  /** One batch in one transaction: matches, per-event counts, last_sync_at, and the media read back. */
  applyIngest(userId: string, write: IngestWrite): Promise<IngestApplied>;
  /** Sets has_synced and advances last_sync_at to max(stored, nowMs); returns it. */
  markSynced(userId: string, nowMs: number): Promise<number>;
  /** One page of the user's shown events and their total, from one snapshot. */
  eventsPage(userId: string, query: EventsPageQuery): Promise<StoredEventsPage>;
  /** The user's matched event ids and sync markers, from one snapshot (stats). */
  history(userId: string): Promise<UserHistory>;
  close(): Promise<void>;
}
