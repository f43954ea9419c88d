import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

/** The test-only key and certificate under fixtures/tls. */
const TLS = {
  key: readFileSync(new URL('../../fixtures/tls/test-only-key.pem', import.meta.url)),
  cert: readFileSync(new URL('../../fixtures/tls/test-only-cert.pem', import.meta.url)),
};

/** A port that speaks TLS to a TLS hello and answers anything else its own way, listening on 127.0.0.1. */
export interface TlsFront {
  port: number;
  /** Connections the port accepted, TLS or not. */
  connections(): number;
  /** Destroys the open sockets, then closes the port and the TLS server behind it. */
  close(): Promise<void>;
}

/** nginx's answer to plain HTTP on its TLS port: a 400 page, not a TLS alert. */
export function nginxPlainHttpPage(socket: Socket): void {
  const page = '<html><body>400 The plain HTTP request was sent to HTTPS port</body></html>';
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: text/html\r\ncontent-length: ${page.length}\r\nconnection: ` +
      `close\r\n\r\n${page}`,
  );
}

/** A TLS server's answer to bytes that are not TLS: a fatal protocol_version alert record, not HTTP at all. */
export function tlsAlert(socket: Socket): void {
  socket.end(Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46]));
}

/**
 * One port for TLS and plain text, as nginx serves them: a connection whose first byte opens a
 * TLS handshake (0x16) goes to an HTTPS server answering `{}` to every request, any other to
 * `onPlain`.
 */
export async function tlsFront(options: { onPlain: (socket: Socket) => void }): Promise<TlsFront> {
  const tlsServer = createHttpsServer(TLS, (_req, res) => res.end('{}'));
  const sockets = new Set<Socket>();
  let count = 0;
  const front = createNetServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', (first: Buffer) => {
      if (first[0] === 0x16) {
        // Put the hello back and hand the socket over paused, so the TLS server reads it from the start.
        socket.pause();
        socket.unshift(first);
        tlsServer.emit('connection', socket);
        process.nextTick(() => socket.resume());
        return;
      }
      options.onPlain(socket);
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    port: (front.address() as AddressInfo).port,
    connections: () => count,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      // Never listening itself (it only takes sockets handed over), so its close reports that; nothing to wait for.
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    },
  };
}
