import { describe, expect, it } from 'vitest';
import { checkMatchingInputs, missingForMatching } from '../../src/rules/rejection.js';

const at = '2024-07-12T18:00:00Z';

describe('missingForMatching', () => {
  it.each([
    [{ latitude: 40.75, longitude: -73.99, taken_at: at }, null],
    // coordinates are checked before the capture time
    [{ latitude: null, longitude: null, taken_at: null }, 'missing_coordinates'],
    [{ latitude: 40.75, longitude: null, taken_at: at }, 'missing_coordinates'],
    [{ longitude: -73.99, taken_at: at }, 'missing_coordinates'],
    [{ latitude: 40.75, longitude: -73.99, taken_at: null }, 'missing_taken_at'],
    [{ latitude: 40.75, longitude: -73.99 }, 'missing_taken_at'],
    // zero is a value, not a missing one (the scan nulls exactly 0,0 before it gets here)
    [{ latitude: 0, longitude: 12.5, taken_at: at }, null],
  ])('%j -> %s', (item, expected) => {
    expect(missingForMatching(item)).toBe(expected);
  });

  it('hands the present inputs on, typed', () => {
    expect(checkMatchingInputs({ latitude: 1, longitude: 2, taken_at: at })).toEqual({
      ok: true,
      latitude: 1,
      longitude: 2,
      takenAt: at,
    });
  });
});
