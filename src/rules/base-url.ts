import { ConfigError } from '../errors.js';

/**
 * The one rule for a base URL, wherever it comes from (flag, environment, stored profile, a
 * client built in code): http or https, no credentials (a key goes in its header, never in a
 * URL that shells and logs keep), no query or fragment (paths are appended to it), used whole
 * with its version prefix. Returns it trimmed, without trailing slashes; nothing is appended.
 */
export function checkBaseUrl(value: string): string {
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError('invalid_base_url', `not a valid URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('invalid_base_url', `the base URL must start with http:// or https://: ${text}`);
  }
  if (url.username || url.password) {
    throw new ConfigError('invalid_base_url', 'the base URL must not carry credentials');
  }
  if (url.search || url.hash) {
    throw new ConfigError('invalid_base_url', `the base URL must not carry a query or fragment: ${text}`);
  }
  return text.replace(/\/+$/, '');
}

/**
 * Whether a base URL points at this machine (`localhost`, 127.0.0.0/8, `::1`): a `camroll serve`
 * there keeps its users in a local database, so its sandbox key creates no real profile, and
 * plain `http://` to it keeps the key on the machine. Only the name `localhost` itself counts:
 * a name under `.localhost` may still be asked of DNS, and answered with another host.
 */
export function isLoopbackUrl(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Whether a target is a service on this machine (the embedded one, or a `camroll serve` on a
 * loopback address): its profiles live in a local database, never in the partner's dataset.
 */
export function isLocalService(target: { kind: 'remote' | 'embedded'; baseUrl: string }): boolean {
  return target.kind === 'embedded' || isLoopbackUrl(target.baseUrl);
}

/**
 * Whether requests to a base URL would carry the key in clear text off this machine: plain
 * `http://` to a host that is not loopback.
 */
export function isCleartextToRemote(baseUrl: string): boolean {
  return new URL(baseUrl).protocol === 'http:' && !isLoopbackUrl(baseUrl);
}

/**
 * The one rule for where the key may go: `https://` anywhere, plain `http://` to this machine
 * only, unless the user opted in (`--allow-insecure-http`, or a profile stored with it). Checked
 * by the client before it makes its first connection; the refusal names the https:// URL.
 */
export function checkTransport(baseUrl: string, allowInsecureHttp: boolean): void {
  if (allowInsecureHttp || !isCleartextToRemote(baseUrl)) return;
  const url = new URL(baseUrl);
  url.protocol = 'https:';
  if (url.port === '80') url.port = '';
  const https = url.href.replace(/\/$/, '');
  throw new ConfigError(
    'insecure_base_url',
    `refusing plain http:// to ${new URL(baseUrl).host}, which is not this machine: the API key would cross the ` +
      `network in clear text; use https:// (${https})`,
    { details: { base_url: baseUrl } },
  );
}
