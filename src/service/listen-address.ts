import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { ListenError } from '../errors.js';

/**
 * Where `serve` listens, as a user needs to hear it: a failure to listen named with its fix
 * rather than Node's `listen EADDRINUSE: address already in use`, and for a wildcard host
 * (0.0.0.0, ::) a URL a client can call, which `http://0.0.0.0:8787/v1` is not.
 */

/** Hosts that mean every interface of the machine. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0']);

/** Whether `host` listens on every interface (0.0.0.0 or ::). */
export function isWildcardHost(host: string): boolean {
  return WILDCARD_HOSTS.has(host);
}

/** `host` as it goes in a URL: an IPv6 address in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The host to print for a service listening on `host`: itself, or for a wildcard the
 * machine's first external IPv4 address (what another machine would call), else 127.0.0.1.
 */
export function advertisedHost(
  host: string,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
): string {
  if (!isWildcardHost(host)) return urlHost(host);
  for (const addresses of Object.values(interfaces)) {
    const external = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (external !== undefined) return external.address;
  }
  return '127.0.0.1';
}

/** Listen failures worth their own words, by the system's code. */
const LISTEN_CODES: Record<string, ListenError['code']> = {
  EADDRINUSE: 'address_in_use',
  EACCES: 'address_forbidden',
  EPERM: 'address_forbidden',
  EADDRNOTAVAIL: 'address_unavailable',
  ENOTFOUND: 'address_unavailable',
  EAI_AGAIN: 'address_unavailable',
  EAI_NONAME: 'address_unavailable',
};

/** A failure of `listen` on `host`:`port` as a ListenError saying what went wrong; null for any other error. */
export function listenErrorFrom(error: unknown, host: string, port: number): ListenError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !(code in LISTEN_CODES)) return null;
  const listenCode = LISTEN_CODES[code]!;
  const where = `${urlHost(host)}:${port}`;
  const why =
    listenCode === 'address_in_use'
      ? `port ${port} is already in use`
      : listenCode === 'address_forbidden'
        ? port < 1024
          ? `port ${port} needs privileges (ports below 1024 are reserved)`
          : `permission denied (${code})`
        : code === 'EADDRNOTAVAIL'
          ? `${host} is not an address of this machine`
          : `the host name ${host} does not resolve`;
  return new ListenError(listenCode, `cannot listen on ${where}: ${why}`, {
    cause: error,
    details: { host, port, system_code: code },
  });
}
