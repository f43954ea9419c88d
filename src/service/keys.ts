import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { Environment, type RateLimitPolicy } from '../contract/service.js';
import { StartupError } from '../errors.js';

/**
 * Shortest production key a keys file may hold: a shorter one is quick to guess, even at 30
 * tries a minute. Sandbox keys are left as they are: the product decisions' own example keys
 * file holds `sk_test_abc`, and a sandbox holds no real user's data.
 */
export const MIN_KEY_LENGTH = 16;

/** One entry of the `--keys` file. */
export const KeyEntry = z
  .object({
    key: z.string().min(1, 'key must be a non-empty string'),
    partner_id: z.string().min(1, 'partner_id must be a non-empty string'),
    environment: Environment,
    rate_limit: z
      .object({
        limit: z.number().int().positive(),
        window_seconds: z.number().int().positive(),
      })
      .nullable()
      .optional(),
  })
  .superRefine((entry, ctx) => {
    if (entry.environment === 'production' && entry.key.length < MIN_KEY_LENGTH) {
      ctx.addIssue({
        code: 'custom',
        path: ['key'],
        message: `a production key is shorter than ${MIN_KEY_LENGTH} characters: use a long random key (openssl rand -base64 24 makes one)`,
      });
    }
  });
export type KeyEntry = z.infer<typeof KeyEntry>;

export const KeysFile = z.array(KeyEntry).min(1, 'the keys file lists no key');

/** A configured key as the service holds it: the secret only as a digest. */
export interface PartnerKey {
  /** Stable id for rate limiting and logs; never the key itself. */
  readonly id: string;
  readonly partnerId: string;
  readonly environment: Environment;
  readonly rateLimit: { limit: number; windowSeconds: number } | null;
  readonly digest: Buffer;
}

/** The set of keys the service accepts, with a constant-time lookup. */
export interface KeyRing {
  /** The key matching `presented`, or null. Time does not depend on which key matched. */
  find(presented: string | undefined): PartnerKey | null;
}

const digestOf = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/** Builds a key ring from validated entries. Duplicate keys are a configuration error. */
export function createKeyRing(entries: readonly KeyEntry[]): KeyRing {
  const keys: PartnerKey[] = entries.map((entry, index) => ({
    id: `key-${index}`,
    partnerId: entry.partner_id,
    environment: entry.environment,
    rateLimit: entry.rate_limit
      ? { limit: entry.rate_limit.limit, windowSeconds: entry.rate_limit.window_seconds }
      : null,
    digest: digestOf(entry.key),
  }));
  const seen = new Set<string>();
  for (const [index, key] of keys.entries()) {
    const hex = key.digest.toString('hex');
    if (seen.has(hex)) throw new StartupError('invalid_keys', `keys file: entry ${index} repeats an earlier key`);
    seen.add(hex);
  }
  return {
    find(presented) {
      if (typeof presented !== 'string' || presented.length === 0) return null;
      // Hashing gives both sides a fixed length; every key is compared, no early exit.
      const candidate = digestOf(presented);
      let found: PartnerKey | null = null;
      for (const key of keys) {
        if (timingSafeEqual(candidate, key.digest) && found === null) found = key;
      }
      return found;
    },
  };
}

/** The rate-limit policy of a key as /health shows it. */
export function policyOf(key: PartnerKey): RateLimitPolicy {
  return key.rateLimit
    ? { enabled: true, limit: key.rateLimit.limit, window_seconds: key.rateLimit.windowSeconds }
    : { enabled: false, limit: null, window_seconds: null };
}

/** Reads and validates a `--keys` file; the message names the first bad entry. */
export async function loadKeysFile(path: string): Promise<KeyEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new StartupError('invalid_keys', `cannot read keys file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // Not the parser's message: it quotes the text around the fault, which may be a key.
    throw new StartupError('invalid_keys', `keys file ${path} is not valid JSON`, { cause: error });
  }
  const parsed = KeysFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const [entry, ...member] = issue?.path ?? [];
    const where =
      typeof entry === 'number'
        ? ` at entry ${entry}${member.length > 0 ? ` (${member.join('.')})` : ''}`
        : issue && issue.path.length > 0
          ? ` at ${issue.path.join('.')}`
          : '';
    // Never echo the entry itself: it would print a key.
    throw new StartupError('invalid_keys', `keys file ${path}${where}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Where the single local key came from when no keys file is given. */
export type LocalKeySource = 'env' | 'stored' | 'generated';

/**
 * The local key used without `--keys`: CAMROLL_API_KEY when set (so scripts share one key
 * with clients), else one generated once and kept in `<dataDir>/local-key` (mode 0600).
 * With `persist: false` (a `:memory:` database keeps nothing on disk) a stored key is still
 * reused, but a new one is not written.
 */
export async function resolveLocalKey(
  options: { env: NodeJS.ProcessEnv; dataDir: string; persist?: boolean },
  attempt = 0,
): Promise<{ key: string; source: LocalKeySource }> {
  const fromEnv = options.env.CAMROLL_API_KEY?.trim();
  if (fromEnv) return { key: fromEnv, source: 'env' };
  const file = `${options.dataDir}/local-key`;
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    if (stored.length > 0) return { key: stored, source: 'stored' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = `sk_local_${randomBytes(24).toString('base64url')}`;
  if (options.persist === false) return { key, source: 'generated' };
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // 'wx' loses a race with another process cleanly instead of overwriting its key.
  try {
    await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 3) return resolveLocalKey(options, attempt + 1);
    throw error;
  }
  await chmod(file, 0o600);
  return { key, source: 'generated' };
}

/** The keys file entry of the local key. */
export function localKeyEntry(key: string): KeyEntry {
  return { key, partner_id: 'local', environment: 'sandbox' };
}
