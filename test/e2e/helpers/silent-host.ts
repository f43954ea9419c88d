import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A port on 127.0.0.1 that takes connections and never says a word (a hung server, a dead proxy). */
export interface SilentHost {
  port: number;
  /** Connections taken so far. */
  connections(): number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:0, keeps every socket open and silent; `close` destroys them. */
export async function startSilentHost(): Promise<SilentHost> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A TCP relay on 127.0.0.1 to `target` that can fall silent: after `freeze()` it still takes
 * connections, but nothing goes through in either direction, on new connections or on those
 * already open (keep-alive ones included). `thaw()` drops the frozen connections and relays again.
 */
export interface FreezingRelay {
  port: number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startFreezingRelay(target: { host: string; port: number }): Promise<FreezingRelay> {
  let frozen = false;
  const pairs = new Set<{ client: Socket; upstream: Socket | null }>();
  const server = createServer((client) => {
    const pair: { client: Socket; upstream: Socket | null } = { client, upstream: null };
    pairs.add(pair);
    const drop = (): void => {
      client.destroy();
      pair.upstream?.destroy();
      pairs.delete(pair);
    };
    client.on('error', drop);
    client.on('close', drop);
    if (frozen) return;
    const upstream = connect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on('error', drop);
    upstream.on('close', drop);
    upstream.on('data', (chunk: Buffer) => {
      if (!frozen) client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => {
      if (!frozen) upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const pair of [...pairs]) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      pairs.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of pairs) {
          pair.client.destroy();
          pair.upstream?.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
