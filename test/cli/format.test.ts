import { describe, expect, it } from 'vitest';
import type { Event, Stats } from '../../src/contract/index.js';
import { describeHealth } from '../../src/cli/commands/ping.js';
import { userRequestFromFlags } from '../../src/cli/commands/users.js';
import { parseEmail, parseLimit, parseUserId } from '../../src/cli/connection-args.js';
import { passOf, SyncFlags } from '../../src/cli/sync-flags.js';
import { countPerYear, renderBarChart } from '../../src/cli/format/bar-chart.js';
import { renderEventsTable } from '../../src/cli/format/events.js';
import { eventYear, renderStats } from '../../src/cli/format/stats.js';
import { renderTable, tableLines, truncate } from '../../src/cli/format/table.js';
import { UsageError } from '../../src/errors.js';

describe('renderTable', () => {
  it('aligns columns, right-aligns numbers and cuts long cells', () => {
    const out = renderTable(
      [
        { header: 'NAME', value: (r: { n: string; c: number }) => r.n, maxWidth: 6 },
        { header: 'N', value: (r) => String(r.c), align: 'right' },
      ],
      [
        { n: 'short', c: 5 },
        { n: 'a very long name', c: 123 },
      ],
    );
    expect(out).toBe(['NAME      N', '------  ---', 'short     5', 'a ver…  123', ''].join('\n'));
  });

  it('truncates by characters, not bytes', () => {
    expect(truncate('Zürich Stadion', 6)).toBe('Zürich'.slice(0, 5) + '…');
    expect(truncate('abc', 3)).toBe('abc');
  });
});

describe('bar chart', () => {
  it('fills missing years with zero and scales bars to the largest', () => {
    const bars = countPerYear([2021, 2023, 2023, 2023, 2021, 2024]);
    expect(bars).toEqual([
      { label: '2021', value: 2 },
      { label: '2022', value: 0 },
      { label: '2023', value: 3 },
      { label: '2024', value: 1 },
    ]);
    expect(renderBarChart(bars, { width: 6, block: '#' })).toBe(
      ['2021  #### 2', '2022   0', '2023  ###### 3', '2024  ## 1', ''].join('\n'),
    );
  });

  it('gives a small non-zero value at least one block', () => {
    expect(
      renderBarChart(
        [
          { label: 'a', value: 1000 },
          { label: 'b', value: 1 },
        ],
        { width: 10, block: '#' },
      ),
    ).toContain('b  # 1');
  });

  it('is empty without data', () => {
    expect(countPerYear([])).toEqual([]);
    expect(renderBarChart([])).toBe('');
  });
});

const event = (id: number, startsAt: string, extra: Partial<Event> = {}): Event => ({
  id,
  name: `Event ${id}`,
  starts_at_local: startsAt,
  ...extra,
});

describe('renderEventsTable', () => {
  it('shows local date, event, venue, city and media count in the given order', () => {
    const out = renderEventsTable([
      event(2, '2024-07-12T20:00:00', { venue: { id: 1, name: 'Arena', city: 'Lyon' }, media_count: 3 }),
      event(1, '2019-01-02T19:30:00', { media: [{ media_id: 'a' }] }),
    ]);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^DATE\s+EVENT\s+VENUE\s+CITY\s+MEDIA$/);
    expect(lines[2]).toMatch(/^2024-07-12 20:00\s+Event 2\s+Arena\s+Lyon\s+3$/);
    expect(lines[3]).toMatch(/^2019-01-02 19:30\s+Event 1\s+-\s+-\s+1$/);
  });

  it('renders 200,000 events (`events --all` of a large history) without overflowing the stack', () => {
    const many = Array.from({ length: 200_000 }, (_, i) => event(i, '2024-07-12T20:00:00', { media_count: i }));
    const lines = renderEventsTable(many).trimEnd().split('\n');
    expect(lines).toHaveLength(200_002);
    expect(lines[200_001]).toMatch(/^2024-07-12 20:00\s+Event 199999\s+-\s+-\s+199999$/);
  });
});

describe('renderStats', () => {
  const stats: Stats = {
    total_events: 4,
    total_venues: 2,
    has_synced: true,
    sports_count: 1,
    concerts_count: 3,
    first_attended: '2021-05-01',
    most_recently_attended: '2023-08-09',
    busiest_year: '2023',
    top_season: 'summer',
    top_artist: 'The Example Band',
    top_genre: 'rock',
    top_team: null,
    top_league: null,
    unique_venues: [
      { venue: { id: 1, name: 'Small Club', city: 'Lyon', country: 'FR' }, visit_count: 1 },
      { venue: { id: 2, name: 'Big Arena', city: 'Paris', country: 'FR' }, visit_count: 3 },
    ],
    last_sync_at: '2024-01-01T00:00:00Z',
  };

  it('summarises the stats, lists venues by visits and charts events per year', () => {
    const out = renderStats(
      stats,
      ['2021-05-01T20:00:00', '2023-06-01T20:00:00', '2023-07-01T20:00:00', '2023-08-09T20:00:00'].map(eventYear),
    );
    expect(out).toMatch(/Events\s+4 \(3 concerts, 1 sports\)/);
    expect(out).toMatch(/Top artist\s+The Example Band/);
    expect(out).toMatch(/Top team\s+-/);
    expect(out.indexOf('Big Arena')).toBeLessThan(out.indexOf('Small Club'));
    expect(out).toMatch(/Events per year\n2021\s+█+ 1\n2022\s+0\n2023\s+█+ 3\n/);
  });

  it('has no chart and dashes for a fresh profile', () => {
    const fresh = {
      ...stats,
      total_events: 0,
      concerts_count: 0,
      sports_count: 0,
      unique_venues: [],
      first_attended: null,
      busiest_year: null,
      has_synced: false,
    };
    const out = renderStats(fresh, []);
    expect(out).toMatch(/First attended\s+-/);
    expect(out).toMatch(/Library synced\s+not yet/);
    expect(out).not.toContain('Events per year');
  });
});

describe('describeHealth', () => {
  it.each([
    [{ enabled: false, limit: null, window_seconds: null }, 'not throttled'],
    [{ enabled: true, limit: 100, window_seconds: 60 }, '100 requests per 60 s'],
    [{ rpm: 5 }, '{"rpm":5}'],
  ])('rate limit %j', (rateLimit, expected) => {
    expect(
      describeHealth(
        { partner_id: 'acme', environment: 'production', rate_limit: rateLimit },
        { kind: 'remote', baseUrl: 'https://h/v1' },
      ),
    ).toContain(`rate limit   ${expected}`);
  });
});

describe('argument checks', () => {
  it.each([['0'], ['101'], ['2.5'], ['-1'], ['ten'], ['']])('rejects --limit %j', (value) => {
    expect(() => parseLimit(value)).toThrow(UsageError);
  });
  it('accepts limits 1 and 100, and none', () => {
    expect(parseLimit('1')).toBe(1);
    expect(parseLimit('100')).toBe(100);
    expect(parseLimit(undefined)).toBeUndefined();
  });
  it('checks user ids and e-mails', () => {
    expect(parseUserId('3f1c2a8e-4b5d-4c6e-8f90-123456789abc')).toBe('3f1c2a8e-4b5d-4c6e-8f90-123456789abc');
    expect(() => parseUserId('abc')).toThrow(UsageError);
    // UUIDs are case-insensitive; the service issues lower case, and the id keys the journal.
    expect(parseUserId('3F1C2A8E-4B5D-4C6E-8F90-123456789ABC')).toBe('3f1c2a8e-4b5d-4c6e-8f90-123456789abc');
    expect(passOf(SyncFlags.parse({ user: '3F1C2A8E-4B5D-4C6E-8F90-123456789ABC' }))).toMatchObject({
      identity: { userId: '3f1c2a8e-4b5d-4c6e-8f90-123456789abc' },
    });
    expect(parseEmail(' a@example.com ')).toBe('a@example.com');
    expect(() => parseEmail('a@')).toThrow(UsageError);
  });
  it('builds a user request from flags, with an address only when one is given', () => {
    expect(userRequestFromFlags({ email: 'a@example.com' })).toEqual({ email: 'a@example.com' });
    expect(
      userRequestFromFlags({
        email: 'a@example.com',
        firstName: 'Ada',
        phone: '+33',
        city: 'Lyon',
        postalCode: '69001',
        partnerUserId: 'p1',
      }),
    ).toEqual({
      email: 'a@example.com',
      first_name: 'Ada',
      phone_number: '+33',
      partner_user_id: 'p1',
      address: { city: 'Lyon', postal_code: '69001' },
    });
  });
});

describe('tableLines', () => {
  const columns = [
    { header: 'NAME', value: (r: { name: string; n: number }) => r.name, maxWidth: 8 },
    { header: 'N', value: (r: { name: string; n: number }) => String(r.n), align: 'right' as const },
  ];

  it("gives renderTable's lines one by one, from two reads of the rows", () => {
    const rows = [
      { name: 'alpha', n: 1 },
      { name: 'a very long name', n: 12345 },
      { name: 'b\tc', n: 7 },
    ];
    let reads = 0;
    const lines = [
      ...tableLines(columns, () => {
        reads += 1;
        return rows.values();
      }),
    ];
    expect(reads).toBe(2);
    expect(lines.join('')).toBe(renderTable(columns, rows));
    expect(lines).toEqual([
      'NAME          N\n',
      '--------  -----\n',
      'alpha         1\n',
      'a very …  12345\n',
      'b c           7\n',
    ]);
  });

  it('a row that grew between the two reads pushes its line out, never breaks the table', () => {
    let read = 0;
    const lines = [
      ...tableLines(columns, () => {
        read += 1;
        return [{ name: 'ab', n: read === 1 ? 1 : 1000 }];
      }),
    ];
    expect(lines).toEqual(['NAME  N\n', '----  -\n', 'ab    1000\n']);
  });
});
