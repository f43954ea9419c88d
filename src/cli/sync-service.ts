import type { ConnectionFlags } from './connection-options.js';
import type { CliContext } from './context.js';
import type { SyncService } from '../sync/session.js';

export interface SyncServiceOptions {
  ctx: CliContext;
  flags: ConnectionFlags;
  /** A retry's line (without `camroll: `), as describeRetry words it. */
  onRetry: (line: string) => void;
  /** A request's "waiting for the host" line (without `camroll: `), as describeWait words it. */
  onWaiting: (line: string) => void;
}

/**
 * How `camroll sync` reaches the service: the connection every command opens (flags > env >
 * stored profile, or the embedded service) and the users remembered on this machine. The
 * client is loaded when the session asks for it, not with the command (undici alone is ~60 ms).
 */
export function createSyncService(options: SyncServiceOptions): SyncService {
  const { ctx, flags } = options;
  const connection = () => import('./connection.js');
  // A dry run only reads: one retry and a short timeout unless the flags say otherwise.
  const readFlags: ConnectionFlags = {
    baseUrl: flags.baseUrl,
    profile: flags.profile,
    retries: flags.retries ?? 1,
    timeout: flags.timeout ?? 10,
  };
  return {
    async open(onRequest) {
      const { describeRetry, describeWait, openConnection, openDirectory } = await connection();
      const directory = await openDirectory(ctx);
      const opened = await openConnection({
        ctx,
        flags,
        client: {
          onRequest,
          onRetry: (notice) => options.onRetry(describeRetry(notice)),
          onWaiting: (notice) => options.onWaiting(describeWait(notice)),
        },
      }).catch((error: unknown) => {
        directory.close();
        throw error;
      });
      return {
        client: opened.client,
        target: opened.target,
        users: {
          recall: (target, email) => directory.lookup(target, email)?.userId,
          remember: (target, email, userId, existing) =>
            directory.remember({ target, email, userId, source: existing ? 'found' : 'created' }),
        },
        async close() {
          directory.close();
          await opened.close();
        },
      };
    },
    async target() {
      return (await connection()).targetIdentity(ctx, readFlags);
    },
    async recall(target, email) {
      // A dry run's lookup reads only: no directory file created, no last-seen bump.
      const directory = await (await connection()).readDirectory(ctx);
      try {
        return directory.get(target, email)?.userId ?? null;
      } finally {
        directory.close();
      }
    },
    async read(use) {
      return (await connection()).withConnection({ ctx, flags: readFlags }, ({ client }) => use(client));
    },
  };
}
