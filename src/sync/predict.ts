import { MediaMetadata, type RejectionReason } from '../contract/index.js';
import { wouldBeRejected } from '../scan/index.js';

/**
 * The rejection the service would give an item, predicted locally for `--dry-run`:
 * `invalid` when it breaks the contract's item schema, else the scanner's own rule
 * (coordinates first, then capture time, the embedded service's order). null: accepted.
 */
export function predictRejection(media: unknown): RejectionReason | null {
  const parsed = MediaMetadata.safeParse(media);
  if (!parsed.success) return 'invalid';
  const item = parsed.data;
  return wouldBeRejected({
    latitude: item.latitude ?? null,
    longitude: item.longitude ?? null,
    taken_at: item.taken_at ?? null,
  });
}
