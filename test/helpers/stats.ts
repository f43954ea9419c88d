/** A fresh profile's stats, as the contract and the product decisions describe them. */
export const FRESH_STATS = {
  total_events: 0,
  total_venues: 0,
  has_synced: false,
  sports_count: 0,
  concerts_count: 0,
  first_attended: null,
  most_recently_attended: null,
  busiest_year: null,
  top_season: null,
  top_artist: null,
  top_genre: null,
  top_team: null,
  top_league: null,
  unique_venues: [],
  last_sync_at: null,
};
