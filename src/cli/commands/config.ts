import type { Command } from 'commander';
import {
  createConfigStore,
  DEFAULT_PROFILE,
  maskKey,
  readSecret,
  resolveSettings,
  validateProfileName,
  type ConfigStore,
  type Source,
} from '../../config/index.js';
import { ConfigError, InterruptedError, UsageError } from '../../errors.js';
import { commandConfig } from '../command-config.js';
import { emit, jsonLine } from '../output/emit.js';
import type { CliContext } from '../context.js';
import { renderTable } from '../format/table.js';
import { terminalWidth } from '../format/width.js';
import { versionPrefixSuggestion } from '../hints.js';
import { isCleartextToRemote } from '../../rules/base-url.js';

interface ProfileFlag {
  profile?: string;
}

const SOURCE_LABEL: Record<Source, string> = {
  flag: 'from --profile/--base-url',
  env: 'from the environment',
  profile: 'from the stored profile',
  none: 'not set',
};

/** `camroll config`: profiles with a base URL and a key; the key is never shown or taken as a flag. */
export function registerConfig(program: Command, ctx: CliContext): void {
  // Every store of the command shares its reader: the file is read once, and again after a write.
  const openStore = (): ConfigStore => createConfigStore({ cwd: ctx.paths.config, reader: commandConfig(ctx) });
  const config = program
    .command('config')
    .description('Read and write the stored configuration (profiles, base URL, key)');

  /** The profile a write goes to: --profile, then CAMROLL_PROFILE, then the current one, then "default". */
  const writeTarget = (store: ConfigStore, flag: string | undefined): string =>
    usage(() => validateProfileName(flag ?? ctx.env.CAMROLL_PROFILE ?? store.currentProfile() ?? DEFAULT_PROFILE));

  config
    .command('set-url <url>')
    .description('Set the base URL of a profile, used whole (e.g. https://sandbox.example.com/v1)')
    .option('--profile <name>', 'profile to change (default: the current one)')
    .option(
      '--allow-insecure-http',
      'store the choice to use this plain http:// URL although it is not this machine (the key in clear text)',
    )
    .action((url: string, flags: ProfileFlag & { allowInsecureHttp?: boolean }) => {
      const store = openStore();
      const profile = writeTarget(store, flags.profile);
      const saved = usage(() => store.setBaseUrl(profile, url, { allowInsecureHttp: flags.allowInsecureHttp }));
      ctx.stdout.write(`profile ${profile}: base URL set to ${saved}\n`);
      const cleartext = cleartextWarning(saved, flags.allowInsecureHttp === true);
      if (cleartext !== null) emit(ctx.stderr, `camroll: warning: ${cleartext}\n`);
      // Stored as given (it is used whole), but a URL without a version path answers 404 to every call.
      const suggestion = versionPrefixSuggestion(saved);
      if (suggestion !== null) {
        const again = `camroll config set-url ${suggestion}${flags.profile === undefined ? '' : ` --profile ${profile}`}`;
        emit(
          ctx.stderr,
          `camroll: warning: the base URL has no version path: did you mean ${suggestion}? (set it with ` +
            `\`${again}\`)\n`,
        );
      }
    });

  /**
   * The key when standard input gave none. The environment is a fallback only for a pipe that
   * was empty (a script), never for a terminal where nothing was typed; it says so.
   */
  const keyFromEnvironment = (interactive: boolean): string => {
    const fromEnv = ctx.env.CAMROLL_API_KEY?.trim() || null;
    if (interactive) throw new UsageError('no key typed; nothing was stored');
    if (fromEnv === null) {
      throw new UsageError(
        'no key given: pipe it on stdin (e.g. `printf %s "$KEY" | camroll config set-key`) or set CAMROLL_API_KEY',
      );
    }
    emit(ctx.stderr, 'camroll: standard input was empty; storing the key from CAMROLL_API_KEY\n');
    return fromEnv;
  };

  config
    .command('set-key')
    .description(
      'Store the API key of a profile, read from stdin (one line; prompted without echo on a terminal); ' +
        'CAMROLL_API_KEY when piped stdin is empty',
    )
    .option('--profile <name>', 'profile to change (default: the current one)')
    .action(async (flags: ProfileFlag) => {
      const store = openStore();
      const profile = writeTarget(store, flags.profile);
      // Checked before the key is asked for: a key stored under a misspelt name would never be used.
      if (store.getProfile(profile) === null)
        throw unknownProfileForKey(profile, flags.profile !== undefined || ctx.env.CAMROLL_PROFILE !== undefined);
      const answer = await readSecret({
        input: ctx.stdin,
        output: ctx.stderr,
        prompt: `API key for profile ${profile}: `,
        signal: ctx.signal,
      });
      if (answer.kind === 'cancelled') throw new InterruptedError('cancelled; no key was stored');
      const key = answer.kind === 'value' ? answer.value : keyFromEnvironment(answer.interactive);
      usage(() => store.setApiKey(profile, key));
      ctx.stdout.write(`profile ${profile}: API key stored (${maskKey(key)}) in ${store.path}\n`);
    });

  config
    .command('unset-key')
    .description('Remove the stored API key of a profile')
    .option('--profile <name>', 'profile to change (default: the current one)')
    .action((flags: ProfileFlag) => {
      const store = openStore();
      const profile = writeTarget(store, flags.profile);
      const had = store.unsetApiKey(profile);
      ctx.stdout.write(had ? `profile ${profile}: API key removed\n` : `profile ${profile}: no API key was stored\n`);
    });

  config
    .command('show')
    .description('Show the settings in effect (the key masked) and where each comes from')
    .option('--profile <name>', 'show this profile instead of the current one')
    .option('--json', 'print one JSON object')
    .action((flags: ProfileFlag & { json?: boolean }) => {
      const store = openStore();
      if (flags.profile !== undefined) usage(() => validateProfileName(flags.profile as string));
      const settings = resolveSettings({ flags: { profile: flags.profile }, env: ctx.env, store });
      const view = {
        path: store.path,
        profile: settings.profile.value,
        profile_source: settings.profile.source,
        base_url: settings.baseUrl.value,
        base_url_source: settings.baseUrl.source,
        api_key: maskKey(settings.apiKey.value),
        api_key_source: settings.apiKey.source,
        target: settings.baseUrl.value === null ? 'embedded' : 'remote',
        allow_insecure_http: settings.allowInsecureHttp.value,
      };
      if (flags.json) {
        ctx.stdout.write(jsonLine(view));
        return;
      }
      const lines = [
        ['config file', view.path],
        ['profile', view.profile === null ? '(none)' : `${view.profile} (${SOURCE_LABEL[view.profile_source]})`],
        [
          'base URL',
          view.base_url === null
            ? '(none: commands use the embedded local service)'
            : `${view.base_url} (${SOURCE_LABEL[view.base_url_source]})`,
        ],
        ['API key', view.api_key === null ? '(none)' : `${view.api_key} (${SOURCE_LABEL[view.api_key_source]})`],
        ...(view.allow_insecure_http ? [['plain http', 'allowed off this machine (--allow-insecure-http)']] : []),
      ];
      for (const [label, value] of lines) ctx.stdout.write(`${(label as string).padEnd(12)}${value}\n`);
    });

  config
    .command('list')
    .description('List the stored profiles')
    .option('--json', 'print one JSON array')
    .action((flags: { json?: boolean }) => {
      const profiles = openStore()
        .listProfiles()
        .map(({ name, profile, current }) => ({
          name,
          current,
          base_url: profile.base_url ?? null,
          api_key: maskKey(profile.api_key),
        }));
      if (flags.json) {
        ctx.stdout.write(jsonLine(profiles));
        return;
      }
      if (profiles.length === 0) {
        ctx.stdout.write('No profiles stored. Add one with: camroll config set-url <url> --profile <name>\n');
        return;
      }
      ctx.stdout.write(
        renderTable(
          [
            { header: '', value: (p) => (p.current ? '*' : '') },
            { header: 'PROFILE', value: (p) => p.name },
            { header: 'BASE URL', value: (p) => p.base_url ?? '-', fit: 'truncate', minWidth: 24 },
            { header: 'KEY', value: (p) => p.api_key ?? '-' },
          ],
          profiles,
          { width: terminalWidth(ctx.stdout) },
        ),
      );
    });

  config
    .command('use <profile>')
    .description('Make a stored profile the current one')
    .action((profile: string) => {
      const store = openStore();
      usage(() => store.useProfile(profile));
      ctx.stdout.write(`current profile: ${profile}\n`);
    });

  config
    .command('remove <profile>')
    .description('Delete a stored profile (its URL and key)')
    .action((profile: string) => {
      const store = openStore();
      if (!store.removeProfile(profile)) throw new UsageError(`no profile named "${profile}"`);
      ctx.stdout.write(`profile ${profile} removed\n`);
    });

  config
    .command('path')
    .description('Print the path of the configuration file')
    .action(() => {
      ctx.stdout.write(`${openStore().path}\n`);
    });
}

/**
 * The warning of `config set-url` for a plain http:// URL that is not this machine: requests
 * to it are refused (checkTransport) unless the user opted in, and then the key goes in clear.
 */
function cleartextWarning(url: string, allowed: boolean): string | null {
  if (!isCleartextToRemote(url)) return null;
  const host = new URL(url).host;
  if (allowed) {
    return (
      `${host} is not this machine, and plain http:// sends the API key across the network in clear text ` +
      `(stored with --allow-insecure-http); use https:// where the host offers it`
    );
  }
  return (
    `${host} is not this machine: plain http:// would send the API key across the network in clear text, so ` +
    `commands refuse this URL; use https://, or store it with \`camroll config set-url ${url} ` +
    `--allow-insecure-http\` if the network is trusted`
  );
}

/**
 * `set-key` for a profile that does not exist: a key is stored in a profile made by `set-url`,
 * so a typo in the name is caught here rather than when the key is not found later.
 */
function unknownProfileForKey(profile: string, named: boolean): UsageError {
  if (!named) {
    return new UsageError(
      'no profile to store the key in; create one first with `camroll config set-url <url> [--profile NAME]`, then ' +
        'store its key',
    );
  }
  return new UsageError(
    `no profile named "${profile}"; create it first with \`camroll config set-url <url> --profile ${profile}\`, then ` +
      `store its key ` +
      '(`camroll config list` shows the stored profiles)',
  );
}

/** A bad argument (URL, profile name, unknown profile) is a usage error: exit 2. */
function usage<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (
      error instanceof ConfigError &&
      ['invalid_base_url', 'invalid_profile', 'unknown_profile', 'profile_without_url', 'invalid_api_key'].includes(
        error.code,
      )
    ) {
      throw new UsageError(error.message);
    }
    throw error;
  }
}
