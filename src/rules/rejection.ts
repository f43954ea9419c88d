/**
 * Why an item that is well formed still cannot be matched: the one order shared by the
 * embedded service, the scan's "would be rejected" counts and sync's dry run.
 */

/** A rejection that follows from a missing value rather than a bad one. */
export type MissingForMatching = 'missing_coordinates' | 'missing_taken_at';

/** The members matching needs; null or absent means unknown. */
export interface MatchingInputs {
  latitude?: number | null;
  longitude?: number | null;
  taken_at?: string | null;
}

/** An item's matching inputs, all present; or the rejection its first missing one gives. */
export type MatchingCheck =
  | { ok: true; latitude: number; longitude: number; takenAt: string }
  | { ok: false; reason: MissingForMatching };

/** Checks coordinates first, then the capture time. */
export function checkMatchingInputs(item: MatchingInputs): MatchingCheck {
  const { latitude, longitude, taken_at: takenAt } = item;
  if (latitude == null || longitude == null) return { ok: false, reason: 'missing_coordinates' };
  if (takenAt == null) return { ok: false, reason: 'missing_taken_at' };
  return { ok: true, latitude, longitude, takenAt };
}

/** The rejection a well-formed item gets for a missing value, or null when it can be matched. */
export function missingForMatching(item: MatchingInputs): MissingForMatching | null {
  const check = checkMatchingInputs(item);
  return check.ok ? null : check.reason;
}
