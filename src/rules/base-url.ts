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
 * there keeps its users in a local database, so its sandbox key creates no real profile.
 */
export function isLoopbackUrl(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return false;
  }
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/**
 * Whether a target is a service on this machine (the embedded one, or a `camroll serve` on a
 * loopback address): its profiles live in a local database, never in the partner's dataset.
 */
export function isLocalService(target: { kind: 'remote' | 'embedded'; baseUrl: string }): boolean {
  return target.kind === 'embedded' || isLoopbackUrl(target.baseUrl);
}
