import type { UserDirectory } from '../config/user-directory.js';
import type { ConnectionFlags } from './connection-options.js';
import type { CliContext } from './context.js';
import { loadConnection } from './lazy.js';
import type { SyncService } from '../sync/session.js';

export interface SyncServiceOptions {
  ctx: CliContext;
  flags: ConnectionFlags;
  /**
   * A notice line (without `camroll: `): a retry as describeRetry words it, or a request's
   * "waiting for the host" as describeWait does.
   */
  onNotice: (line: string) => void;
}

/**
 * How `camroll sync` reaches the service: the connection every command opens (flags > env >
 * stored profile, or the embedded service) and the users remembered on this machine. The
 * client is loaded when the session asks for it, not with the command (undici alone is ~60 ms).
 */
export function createSyncService(options: SyncServiceOptions): SyncService {
  const { ctx, flags } = options;
  // A dry run only reads: one retry and a short timeout unless the flags say otherwise.
  const readFlags: ConnectionFlags = {
    baseUrl: flags.baseUrl,
    profile: flags.profile,
    allowInsecureHttp: flags.allowInsecureHttp,
    retries: flags.retries ?? 1,
    timeout: flags.timeout ?? 10,
  };
  return {
    async open(onRequest) {
      const { describeRetry, describeWait, directoryOpener, openConnection } = await loadConnection();
      // Opened on first use: a sync for a `--user` id never reads or creates the directory.
      const openUsers = await directoryOpener(ctx);
      let directory: UserDirectory | null = null;
      const users = (): UserDirectory => {
        directory ??= openUsers();
        return directory;
      };
      const opened = await openConnection({
        ctx,
        flags,
        client: {
          onRequest,
          onRetry: (notice) => options.onNotice(describeRetry(notice)),
          onWaiting: (notice) => options.onNotice(describeWait(notice)),
        },
      });
      return {
        client: opened.client,
        target: opened.target,
        users: {
          recall: (target, email) => users().lookup(target, email)?.userId,
          remember: (target, email, userId, existing) =>
            users().remember({ target, email, userId, source: existing ? 'found' : 'created' }),
        },
        async close() {
          try {
            directory?.close();
          } finally {
            await opened.close();
          }
        },
      };
    },
    async target() {
      return (await loadConnection()).targetIdentity(ctx, readFlags);
    },
    async recall(target, email) {
      // A dry run's lookup reads only: no directory file created, no last-seen bump.
      const directory = await (await loadConnection()).readDirectory(ctx);
      try {
        return directory.get(target, email)?.userId ?? null;
      } finally {
        directory.close();
      }
    },
    async read(use) {
      return (await loadConnection()).withConnection({ ctx, flags: readFlags }, ({ client }) => use(client));
    },
  };
}
