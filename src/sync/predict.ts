import { MediaMetadata, type RejectionReason } from '../contract/index.js';

/**
 * The rejection the service would give an item, predicted locally for `--dry-run`:
 * `invalid` when it breaks the contract's item schema, then missing coordinates, then a
 * missing capture time (the order the embedded service checks them). null: it would be accepted.
 */
export function predictRejection(media: unknown): RejectionReason | null {
  const parsed = MediaMetadata.safeParse(media);
  if (!parsed.success) return 'invalid';
  const item = parsed.data;
  if (item.latitude == null || item.longitude == null) return 'missing_coordinates';
  if (item.taken_at == null) return 'missing_taken_at';
  return null;
}
