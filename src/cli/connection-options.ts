import type { Command } from 'commander';
import { wholeNumber } from './flag-values.js';

/**
 * The connection flags every client command takes. Apart from connection.ts so a command can
 * declare them without loading the HTTP client and the configuration store (sync starts its
 * scan before it loads those).
 */
export interface ConnectionFlags {
  baseUrl?: string;
  profile?: string;
  /** Retries after the first attempt (`--retries`). */
  retries?: number;
  /** Seconds to wait for an answer, and for each silence within one (`--timeout`); a timeout is tried twice at most. */
  timeout?: number;
  /** One stderr line per request and per retry (`-v`). */
  verbose?: boolean;
  /** `--verbose` with the request and response bodies, cut at 2 KB (`--debug`). */
  debug?: boolean;
  /** Plain http:// to a host that is not this machine (`--allow-insecure-http`): the key in clear text. */
  allowInsecureHttp?: boolean;
}

/** Bounds of `--retries` and `--timeout` (seconds). */
const MAX_RETRIES = 20;
const MAX_TIMEOUT_SECONDS = 600; // 10 min

/** Adds `--base-url`, `--profile`, `--retries`, `--timeout`, `-v`, `--debug` and `--allow-insecure-http`. */
export function addConnectionOptions(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', 'service base URL, used whole with its version prefix (e.g. https://host/v1)')
    .option('--profile <name>', 'stored profile to use (see `camroll config list`)')
    .option(
      '--retries <n>',
      `retries of a failed request, 0 to ${MAX_RETRIES} (default 5)`,
      wholeNumber('--retries', 0, MAX_RETRIES),
    )
    .option(
      '--timeout <seconds>',
      `seconds to wait for an answer, 1 to ${MAX_TIMEOUT_SECONDS} (default 30); a request met by silence is tried ` +
        `twice at most`,
      wholeNumber('--timeout', 1, MAX_TIMEOUT_SECONDS),
    )
    .option('-v, --verbose', 'one line on stderr per request and per retry (never the key)')
    .option('--debug', 'like --verbose, with request and response bodies cut at 2 KB')
    .option(
      '--allow-insecure-http',
      'allow a plain http:// base URL that is not this machine (the key crosses the network in clear text)',
    );
}
