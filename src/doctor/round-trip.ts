import { EventsPage, IngestResponse, paths, Stats, UserCreateResponse, type MediaMetadata } from '../contract/index.js';
import { firstIssue, type Check } from './check.js';
import { describeBody, probe, type ProbeOptions, type ProbeResult } from './probe.js';

export interface RoundTripOptions {
  baseUrl: string;
  apiKey: string;
  partnerId: string;
  probe: ProbeOptions;
}

/** The smoke profile's address: one per partner, reused; `.invalid` can never receive mail. */
export function smokeEmail(partnerId: string): string {
  const label =
    partnerId
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'partner';
  return `camroll-doctor@${label}.invalid`;
}

/**
 * One batch the service retains nothing of: each rejection reason once, and one item far from
 * any venue (mid-Atlantic, 2001), which is evaluated and dropped. Ids use characters an
 * echo must keep exactly.
 */
export function smokeBatch(): { media: MediaMetadata[]; expected: Record<string, string | null> } {
  const media: MediaMetadata[] = [
    { id: 'doctor:no-place ü', taken_at: '2001-06-01T12:00:00Z', latitude: null, longitude: null },
    { id: 'doctor:no-time/ß', taken_at: null, latitude: 0.5, longitude: -30.5 },
    { id: 'doctor:bad-latitude#1', taken_at: '2001-06-01T12:00:00Z', latitude: 123, longitude: -30.5 },
    { id: 'doctor:unmatched 🎟', taken_at: '2001-06-01T12:00:00Z', latitude: 0.5, longitude: -30.5 },
  ] as MediaMetadata[];
  const expected = {
    'doctor:no-place ü': 'missing_coordinates',
    'doctor:no-time/ß': 'missing_taken_at',
    'doctor:bad-latitude#1': 'invalid',
    'doctor:unmatched 🎟': null,
  };
  return { media, expected };
}

type Answer = Extract<ProbeResult, { kind: 'answer' }>;

/** The hint of a round-trip answer outside the contract. */
const CONTRACT_HINT = 'the service breaks the contract here: report it with the time, the URL and this line';

/** An answer with the wanted status and a JSON body, or the failed check that says why not. */
function answered(name: string, what: string, result: ProbeResult, status: number): Answer | Check {
  if (result.kind !== 'answer') {
    return {
      name,
      status: 'fail',
      detail: `${what}: ${result.code}`,
      hint: 'the earlier checks got answers, this did not: run doctor --round-trip again',
    };
  }
  if (result.json === undefined)
    return {
      name,
      status: 'fail',
      detail: `${what} ${result.status}: not JSON (${describeBody(result)})`,
      hint: CONTRACT_HINT,
    };
  if (result.status !== status) {
    const hint =
      result.status === 429
        ? 'the key is being throttled: wait a minute and run doctor --round-trip again'
        : CONTRACT_HINT;
    return {
      name,
      status: 'fail',
      detail: `${what} answered ${result.status}, not ${status}: ${result.body.slice(0, 200)}`,
      hint,
    };
  }
  return result;
}

/** Writes only the smoke profile (once) and reads it back; checks each answer against the contract. */
export async function roundTrip(options: RoundTripOptions): Promise<Check[]> {
  const checks: Check[] = [];
  const call = (method: 'GET' | 'POST', path: string, body?: unknown): Promise<ProbeResult> =>
    probe(method, `${options.baseUrl}${path}`, options.apiKey, body, options.probe);

  const email = smokeEmail(options.partnerId);
  const user = answered('roundtrip.user', 'POST /users', await call('POST', paths.users(), { email }), 201);
  if ('name' in user) return [user, ...skipped(['roundtrip.ingest', 'roundtrip.events', 'roundtrip.stats'])];
  const created = UserCreateResponse.safeParse(user.json);
  if (!created.success) {
    return [
      {
        name: 'roundtrip.user',
        status: 'fail',
        detail: `POST /users body breaks the contract at ${firstIssue(created.error)}`,
        hint: CONTRACT_HINT,
      },
      ...skipped(['roundtrip.ingest', 'roundtrip.events', 'roundtrip.stats']),
    ];
  }
  const userId = created.data.user_id;
  checks.push({
    name: 'roundtrip.user',
    status: 'pass',
    detail: `${email}: ${created.data.existing ? 'reused' : 'created'} ${userId}`,
  });

  const { media, expected } = smokeBatch();
  const ingest = answered('roundtrip.ingest', 'POST media', await call('POST', paths.media(userId), { media }), 200);
  if ('name' in ingest) checks.push(ingest);
  else checks.push(judgeIngest(ingest.json, media.length, expected));

  for (const [name, path, schema] of [
    ['roundtrip.events', `${paths.events(userId)}?limit=1`, EventsPage],
    ['roundtrip.stats', paths.stats(userId), Stats],
  ] as const) {
    const result = answered(name, `GET ${path.split('?')[0]}`, await call('GET', path), 200);
    if ('name' in result) {
      checks.push(result);
      continue;
    }
    const parsed = schema.safeParse(result.json);
    checks.push(
      parsed.success
        ? { name, status: 'pass', detail: 'matches the contract' }
        : { name, status: 'fail', detail: `breaks the contract at ${firstIssue(parsed.error)}`, hint: CONTRACT_HINT },
    );
  }
  return checks;
}

/** The ingest invariants of the contract, for the smoke batch. */
export function judgeIngest(json: unknown, sent: number, expected: Record<string, string | null>): Check {
  const name = 'roundtrip.ingest';
  const parsed = IngestResponse.safeParse(json);
  if (!parsed.success)
    return { name, status: 'fail', detail: `breaks the contract at ${firstIssue(parsed.error)}`, hint: CONTRACT_HINT };
  const answer = parsed.data;
  const problems: string[] = [];
  if (answer.accepted !== sent - answer.rejected.length)
    problems.push(`accepted ${answer.accepted} is not sent ${sent} − rejected ${answer.rejected.length}`);
  if (answer.matches.length !== answer.accepted)
    problems.push(`${answer.matches.length} matches for ${answer.accepted} accepted items`);
  if (answer.matched !== answer.matches.filter((m) => m.matched).length)
    problems.push(`matched ${answer.matched} disagrees with the matches`);
  const echoed = [...answer.rejected.map((r) => r.id), ...answer.matches.map((m) => m.media_id)].sort();
  const sentIds = Object.keys(expected).sort();
  if (JSON.stringify(echoed) !== JSON.stringify(sentIds))
    problems.push(`ids not echoed exactly: got ${JSON.stringify(echoed)}`);
  for (const [id, reason] of Object.entries(expected)) {
    const got = answer.rejected.find((r) => r.id === id)?.reason ?? null;
    if (got !== reason)
      problems.push(`${JSON.stringify(id)}: expected ${reason ?? 'accepted'}, got ${got ?? 'accepted'}`);
  }
  if (answer.matched !== 0) problems.push('an item far from every venue matched');
  if (problems.length > 0)
    return {
      name,
      status: 'fail',
      detail: problems.join('; '),
      hint: 'the service breaks the ingest rules of the contract',
    };
  return {
    name,
    status: 'pass',
    detail:
      `${sent} sent: ${answer.rejected.length} rejected (each reason once), ${answer.accepted} accepted and ` +
      `unmatched; nothing retained`,
  };
}

function skipped(names: string[]): Check[] {
  return names.map((name) => ({ name, status: 'skip', detail: 'not run: an earlier check failed' }));
}
