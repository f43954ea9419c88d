import { plural } from '../util/plural.js';
import { formatSeconds } from '../util/seconds.js';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { CERTIFICATE_CODES, TIMEOUT_CODES } from '../client/network-codes.js';
import { Agent, connectOptions } from '../client/undici.js';
import { describeMismatch, detectSchemeMismatch, mismatchHint } from '../client/scheme-probe.js';
import { HealthResult, PingResult, readRateLimit } from '../client/schemas.js';
import { ErrorEnvelope } from '../contract/index.js';
import { isLocalService, isLoopbackUrl } from '../rules/base-url.js';
import type { Check } from './check.js';
import { firstIssue } from './check.js';
import { describeBody, probe, type ProbeOptions, type ProbeResult } from './probe.js';
import { roundTrip } from './round-trip.js';

/** Where the URL or key came from, as `camroll config show` names it. */
export type SettingSource = 'flag' | 'env' | 'profile' | 'none' | 'embedded';

export interface DoctorTarget {
  kind: 'remote' | 'embedded';
  baseUrl: string;
  /** Used for requests only; never in a check's text. */
  apiKey: string | null;
  baseUrlSource: SettingSource;
  apiKeySource: SettingSource;
}

export interface DoctorOptions {
  target: DoctorTarget;
  /** Also create (or reuse) the smoke profile and send one batch that retains nothing. */
  roundTrip?: boolean;
  /** Wall clock, ms since the epoch (compared with the server's Date header). */
  now?: () => number;
  /** Monotonic clock for latencies, ms. */
  monotonic?: () => number;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
  /** Resolves a host name (throws like dns.lookup when it cannot). */
  lookup?: (host: string) => Promise<unknown>;
}

const VERSION_SEGMENT = /\/v\d+[a-z0-9]*(\/|$)/i;
const SOURCE_WORDS: Record<SettingSource, string> = {
  flag: 'from a flag',
  env: 'from the environment',
  profile: 'from the stored profile',
  none: 'not set',
  embedded: 'the embedded local service',
};
/** Clock skew (s) beyond which a warning, then a failure: the match window is hours wide. */
const SKEW_WARN_S = 60;
const SKEW_FAIL_S = 3600;

/** Runs the checks in order; a check whose prerequisite failed is skipped. */
export async function runDoctor(options: DoctorOptions): Promise<Check[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  // undici's global dispatcher waits 10 s for a connection whatever the timeout: a host that
  // takes the connection and never finishes the TLS handshake would outlast `--timeout 2`.
  const own = options.dispatcher ? null : new Agent({ connect: connectOptions(timeoutMs) });
  const now = options.monotonic ?? (() => performance.now());
  try {
    return await runChecks(options, { timeoutMs, now, dispatcher: options.dispatcher ?? (own as Agent) });
  } finally {
    await own?.destroy();
  }
}

async function runChecks(options: DoctorOptions, probeOptions: ProbeOptions): Promise<Check[]> {
  const { target } = options;
  const get = (path: string, key: string | null): Promise<ProbeResult> =>
    probe('GET', `${target.baseUrl}${path}`, key, undefined, probeOptions);
  const checks: Check[] = [];
  const add = (check: Check): Check => {
    checks.push(check);
    return check;
  };
  const url = new URL(target.baseUrl);
  const suggestion = VERSION_SEGMENT.test(url.pathname) ? null : `${target.baseUrl.replace(/\/+$/, '')}/v1`;

  add({
    name: 'config.base_url',
    status: suggestion === null ? 'pass' : 'warn',
    detail: `${target.kind === 'embedded' ? 'in-process, ' : ''}${target.baseUrl} (${SOURCE_WORDS[target.baseUrlSource]})`,
    ...(suggestion === null ? {} : { hint: `no version prefix in the base URL: did you mean ${suggestion}?` }),
  });
  const loopback = isLoopbackUrl(target.baseUrl);
  add(
    url.protocol === 'https:' || loopback
      ? {
          name: 'config.https',
          status: 'pass',
          detail: url.protocol === 'https:' ? 'https' : 'http on a loopback address',
        }
      : {
          name: 'config.https',
          status: 'warn',
          detail: `http to ${url.hostname}`,
          hint: 'the key would cross the network in clear text: use the https URL',
        },
  );
  const keyCheck = add(
    target.apiKey === null
      ? {
          name: 'config.key',
          status: 'fail',
          detail: 'no API key',
          hint: 'store one with `camroll config set-key [--profile NAME]` (reads stdin) or set CAMROLL_API_KEY',
        }
      : { name: 'config.key', status: 'pass', detail: `set (${SOURCE_WORDS[target.apiKeySource]})` },
  );

  if (loopback || isIP(url.hostname) !== 0) add({ name: 'reach.dns', status: 'pass', detail: 'no lookup needed' });
  else {
    try {
      await (options.lookup ?? dnsLookup)(url.hostname);
      add({ name: 'reach.dns', status: 'pass', detail: `${url.hostname} resolves` });
    } catch (error) {
      add({
        name: 'reach.dns',
        status: 'fail',
        detail: `${url.hostname}: ${(error as { code?: string }).code ?? 'lookup failed'}`,
        hint: 'the host name does not resolve: check the base URL',
      });
      return skipRest(checks, options);
    }
  }

  const ping = await get('/ping', null);
  const pingCheck = add(
    (await judgeScheme(ping, target.baseUrl, probeOptions.timeoutMs)) ?? (await judgePing(ping, suggestion, get)),
  );
  if (pingCheck.status === 'fail') return skipRest(checks, options);
  add(judgeClock(ping, (options.now ?? Date.now)()));

  const anonymous = await get('/health', null);
  add(judgeUnauthorized(anonymous));
  if (keyCheck.status === 'fail') return skipRest(checks, options);
  const health = await get('/health', target.apiKey);
  const healthCheck = add(judgeHealth(health));
  if (healthCheck.status === 'fail' || health.kind !== 'answer') return skipRest(checks, options);
  const { partner_id: partnerId, environment } = health.json as HealthResult;
  // A service on this machine (`camroll serve`, the embedded one) keeps its users in a local database.
  const local = isLocalService(target);
  add(
    environment === 'sandbox' && !local
      ? {
          name: 'key.environment',
          status: 'warn',
          detail: 'sandbox',
          hint: 'sandbox users are real profiles: the sandbox runs on the production dataset',
        }
      : {
          name: 'key.environment',
          status: 'pass',
          detail: local ? `${environment} (a service on this machine: a local database)` : String(environment),
        },
  );
  if (options.roundTrip)
    checks.push(
      ...(await roundTrip({
        baseUrl: target.baseUrl,
        apiKey: target.apiKey as string,
        partnerId,
        probe: probeOptions,
      })),
    );
  return checks;
}

/** Marks the checks that could not run once a prerequisite failed. */
function skipRest(checks: Check[], options: DoctorOptions): Check[] {
  const later = [
    'reach.ping',
    'clock',
    'contract.errors',
    'key.health',
    'key.environment',
    ...(options.roundTrip ? ['roundtrip'] : []),
  ];
  const seen = new Set(checks.map((c) => c.name));
  for (const name of later)
    if (!seen.has(name)) checks.push({ name, status: 'skip', detail: 'not run: an earlier check failed' });
  return checks;
}

/** `reach.ping` when /ping failed because the scheme is wrong (https:// to plain HTTP, or the reverse); else null. */
async function judgeScheme(ping: ProbeResult, baseUrl: string, timeoutMs: number): Promise<Check | null> {
  const code = ping.kind === 'no_answer' ? ping.code : ping.status === 400 ? 'http_400' : null;
  if (code === null) return null;
  const mismatch = await detectSchemeMismatch(new URL(`${baseUrl}/ping`), code, timeoutMs);
  if (mismatch === null) return null;
  return {
    name: 'reach.ping',
    status: 'fail',
    detail: `${describeMismatch(mismatch)} (${code})`,
    hint: mismatchHint(mismatch, baseUrl),
  };
}

async function judgePing(
  ping: ProbeResult,
  suggestion: string | null,
  get: (path: string, key: string | null) => Promise<ProbeResult>,
): Promise<Check> {
  const name = 'reach.ping';
  if (ping.kind === 'no_answer') {
    if (ping.code === 'ECONNREFUSED')
      return {
        name,
        status: 'fail',
        detail: ping.code,
        hint: 'nothing accepts connections there: is the service running, and is the port right?',
      };
    if (CERTIFICATE_CODES.has(ping.code))
      return {
        name,
        status: 'fail',
        detail: ping.code,
        hint: 'the TLS certificate was refused: check the host name, or add your CA with NODE_EXTRA_CA_CERTS',
      };
    if (TIMEOUT_CODES.has(ping.code)) {
      return {
        name,
        status: 'fail',
        detail: `${ping.code}: ${ping.message}`,
        hint: 'the host took the connection but did not answer (a hung server or proxy?)',
      };
    }
    return {
      name,
      status: 'fail',
      detail: `${ping.code}: ${ping.message}`,
      hint: 'no answer: check the network and the base URL',
    };
  }
  if (ping.status === 404 && suggestion !== null) {
    const versioned = await get('/v1/ping', null);
    const answers = versioned.kind === 'answer' && versioned.status === 200;
    return {
      name,
      status: 'fail',
      detail: 'GET /ping: 404',
      hint: `no version prefix: did you mean ${suggestion}? (${answers ? 'it answers /ping' : 'it does not answer either'})`,
    };
  }
  if (ping.json === undefined)
    return {
      name,
      status: 'fail',
      detail: `GET /ping ${ping.status}: not JSON (${describeBody(ping)})`,
      hint: 'this is not the service (an HTML login page? a proxy?): check the base URL',
    };
  if (ping.status !== 200)
    return {
      name,
      status: 'fail',
      detail: `GET /ping answered ${ping.status}, not 200`,
      hint: 'the contract says /ping answers 200 and needs no key: check the base URL is the service',
    };
  const parsed = PingResult.safeParse(ping.json);
  if (!parsed.success)
    return {
      name,
      status: 'fail',
      detail: `GET /ping body breaks the contract at ${firstIssue(parsed.error)}`,
      hint: CONTRACT_HINT,
    };
  return { name, status: 'pass', detail: `200 in ${Math.round(ping.ms)} ms` };
}

/** The Date header counts whole seconds: the service's clock read anywhere in the second it names. */
const DATE_RESOLUTION_MS = 1000;

/**
 * The local clock against the service's Date header, read when the ping's answer came
 * (`nowMs`). The header was stamped somewhere during the round trip, in a second it names
 * only to the second: the best guess compares the middle of the round trip with the middle of
 * that second, and a skew within half a second plus half the round trip is no finding at all
 * (a service on this machine read "1 s ahead" before).
 */
function judgeClock(ping: ProbeResult, nowMs: number): Check {
  const name = 'clock';
  const serverMs = ping.kind === 'answer' && ping.date !== null ? Date.parse(ping.date) : Number.NaN;
  if (Number.isNaN(serverMs))
    return {
      name,
      status: 'warn',
      detail: 'the service sent no Date header',
      hint: 'the local clock could not be compared',
    };
  const skewMs = nowMs - ping.ms / 2 - (serverMs + DATE_RESOLUTION_MS / 2);
  const uncertaintyMs = DATE_RESOLUTION_MS / 2 + ping.ms / 2;
  if (Math.abs(skewMs) <= uncertaintyMs) {
    return {
      name,
      status: 'pass',
      detail: `local clock in step with the service (to ±${describeUncertainty(uncertaintyMs)})`,
    };
  }
  const skewS = Math.round(skewMs / 1000);
  const detail = `local clock ${describeSkew(Math.abs(skewS))} ${skewS >= 0 ? 'ahead of' : 'behind'} the service`;
  const hint = 'capture times are sent in UTC and matched within hours: set the clock right (NTP)';
  if (Math.abs(skewS) >= SKEW_FAIL_S) return { name, status: 'fail', detail, hint };
  if (Math.abs(skewS) > SKEW_WARN_S) return { name, status: 'warn', detail, hint };
  return { name, status: 'pass', detail };
}

/** `0.5 s`, `1.2 s`: the measurement's own uncertainty, to a tenth, rounded up. */
function describeUncertainty(ms: number): string {
  return formatSeconds(Math.ceil(ms / 100) * 100);
}

/**
 * A skew in the largest units that matter: `42 s`, `5 min 3 s`, `3 h 20 min`, `2 d 4 h` (a
 * count of seconds in the thousands says little at a glance).
 */
export function describeSkew(seconds: number): string {
  const s = Math.round(Math.abs(seconds));
  if (s < 60) return `${s} s`;
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60)];
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  return s % 60 > 0 ? `${m} min ${s % 60} s` : `${m} min`;
}

/** The hint of a check whose answer came back, but outside the contract. */
const CONTRACT_HINT =
  'the service answered outside the contract: check the base URL is the service, or report it with the time and URL';
/** The hint of a request that got no answer after /ping did. */
const NO_ANSWER_HINT =
  '/ping answered, this did not: run doctor again, and check for a proxy or firewall between here and the service';

/** A request without a key must get 401 with the envelope and `invalid_api_key`. */
function judgeUnauthorized(answer: ProbeResult): Check {
  const name = 'contract.errors';
  if (answer.kind !== 'answer')
    return { name, status: 'fail', detail: `GET /health without a key: ${answer.code}`, hint: NO_ANSWER_HINT };
  const envelope = ErrorEnvelope.safeParse(answer.json);
  if (answer.status !== 401)
    return {
      name,
      status: 'fail',
      detail: `GET /health without a key answered ${answer.status}, not 401`,
      hint: 'every endpoint but /ping needs the key',
    };
  if (!envelope.success)
    return {
      name,
      status: 'fail',
      detail: `the 401 has no error envelope (${firstIssue(envelope.error)})`,
      hint: CONTRACT_HINT,
    };
  if (envelope.data.error.code !== 'invalid_api_key')
    return {
      name,
      status: 'fail',
      detail: `the 401's code is ${envelope.data.error.code}, not invalid_api_key`,
      hint: CONTRACT_HINT,
    };
  return { name, status: 'pass', detail: '401 invalid_api_key with the error envelope' };
}

function judgeHealth(health: ProbeResult): Check {
  const name = 'key.health';
  if (health.kind !== 'answer') return { name, status: 'fail', detail: health.code, hint: NO_ANSWER_HINT };
  if (health.status === 401)
    return {
      name,
      status: 'fail',
      detail: '401 invalid_api_key',
      hint:
        'the key is wrong, or belongs to the other environment (a sandbox key on the production host, or the ' +
        'reverse)',
    };
  if (health.json === undefined)
    return {
      name,
      status: 'fail',
      detail: `GET /health ${health.status}: not JSON (${describeBody(health)})`,
      hint: CONTRACT_HINT,
    };
  if (health.status !== 200) {
    const hint =
      health.status >= 500
        ? 'the service failed: run doctor again later, and report the time and URL if it persists'
        : CONTRACT_HINT;
    return { name, status: 'fail', detail: `GET /health answered ${health.status}, not 200`, hint };
  }
  const parsed = HealthResult.safeParse(health.json);
  if (!parsed.success)
    return {
      name,
      status: 'fail',
      detail: `GET /health body breaks the contract at ${firstIssue(parsed.error)}`,
      hint: CONTRACT_HINT,
    };
  const policy = readRateLimit(parsed.data.rate_limit);
  const limit =
    policy === null
      ? 'rate limit not described'
      : !policy.enabled
        ? 'not throttled'
        : `${policy.limit === null ? '? requests' : plural(policy.limit, 'request')} per ${policy.window_seconds ?? '?'} s`;
  return {
    name,
    status: 'pass',
    detail: `partner ${parsed.data.partner_id}, environment ${parsed.data.environment}, ${limit}`,
  };
}
