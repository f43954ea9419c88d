import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { seededRandom } from '../../../src/util/seeded-random.js';

export type Fault = 'none' | 'throttle' | 'error500' | 'reset' | 'reset_after' | 'slow';

/** One request as the proxy saw it. */
export interface ProxyEntry {
  seq: number;
  method: string;
  path: string;
  /** Media ids in a POST .../media body. */
  ids: string[];
  fault: Fault;
  /** Whether it reached the service. */
  forwarded: boolean;
  /** Status the service answered (null when not forwarded or not answered). */
  status: number | null;
  /** Whether the service's response was written back to the client in full. */
  delivered: boolean;
}

export interface FaultOptions {
  /** The service's base URL (`http://127.0.0.1:PORT/v1`). */
  target: string;
  seed?: number;
  /** Share of requests given each fault (the rest pass). */
  shares?: Partial<Record<Exclude<Fault, 'none'>, number>>;
  /** Faults for the first requests, in order, before the seeded shares apply ('none' lets one pass). */
  sequence?: Fault[];
  /** A request with the same method, path and body gets at most this many faults, so retries end. */
  maxFaultsPerRequest?: number;
  slowMs?: number;
  /** Hold (never answer) the n-th media POST (1-based), before forwarding or after the service answered. */
  hold?: { nth: number; phase: 'before_forward' | 'before_reply' };
}

export interface FaultProxy {
  baseUrl: string;
  log: ProxyEntry[];
  /** Resolves when the held request is being held. */
  held: Promise<ProxyEntry>;
  /** Holds the n-th media POST from now on (counting restarts); resolves when it is held. */
  arm(hold: NonNullable<FaultOptions['hold']>): Promise<ProxyEntry>;
  /** Stops holding requests. */
  disarm(): void;
  /** Ids of every media POST the service received, from log position `since` on. */
  forwardedIds(since?: number): string[];
  close(): Promise<void>;
}

/** An HTTP proxy on 127.0.0.1 that injects seeded faults and logs every request and the ids it forwards. */
export async function startFaultProxy(options: FaultOptions): Promise<FaultProxy> {
  const target = new URL(options.target);
  const random = seededRandom(options.seed ?? 7);
  const shares = options.shares ?? {};
  const faultsSeen = new Map<string, number>();
  const log: ProxyEntry[] = [];
  const sockets = new Set<Socket>();
  let mediaPosts = 0;
  let hold = options.hold ?? null;
  let onHeld: (e: ProxyEntry) => void = () => undefined;
  const held = new Promise<ProxyEntry>((resolve) => (onHeld = resolve));

  let picks = 0;
  const pickFault = (key: string): Fault => {
    const r = random();
    const fromSequence = options.sequence?.[picks++];
    if ((faultsSeen.get(key) ?? 0) >= (options.maxFaultsPerRequest ?? 2)) return 'none';
    if (fromSequence !== undefined) {
      if (fromSequence !== 'none') faultsSeen.set(key, (faultsSeen.get(key) ?? 0) + 1);
      return fromSequence;
    }
    let acc = 0;
    for (const fault of ['throttle', 'error500', 'reset', 'reset_after', 'slow'] as const) {
      acc += shares[fault] ?? 0;
      if (r < acc) {
        faultsSeen.set(key, (faultsSeen.get(key) ?? 0) + 1);
        return fault;
      }
    }
    return 'none';
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = req.url ?? '/';
    let ids: string[] = [];
    const isMedia = req.method === 'POST' && /\/media$/.test(path);
    if (isMedia) {
      try {
        ids = (JSON.parse(body.toString('utf8')) as { media: Array<{ id: string }> }).media.map((m) => m.id);
      } catch {
        ids = [];
      }
    }
    const key = createHash('sha256').update(`${req.method} ${path}\n`).update(body).digest('hex');
    const entry: ProxyEntry = {
      seq: log.length + 1,
      method: req.method ?? 'GET',
      path,
      ids,
      fault: pickFault(key),
      forwarded: false,
      status: null,
      delivered: false,
    };
    log.push(entry);
    const holdHere = isMedia && hold && ++mediaPosts === hold.nth ? hold.phase : null;

    switch (entry.fault) {
      case 'throttle':
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down (injected)', details: null } }));
        return;
      case 'error500':
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'internal_error', message: 'injected', details: null } }));
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'slow':
        await new Promise((r) => setTimeout(r, options.slowMs ?? 300));
        break;
      default:
        break;
    }
    if (holdHere === 'before_forward') {
      onHeld(entry);
      return; // never answered: the test kills the client
    }
    const upstream = await new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>(
      (resolve, reject) => {
        const headers = { ...req.headers, host: target.host };
        const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path, headers }, (r) => {
          const parts: Buffer[] = [];
          r.on('data', (c: Buffer) => parts.push(c));
          r.on('end', () => resolve({ status: r.statusCode ?? 502, headers: r.headers, body: Buffer.concat(parts) }));
          r.on('error', reject);
        });
        up.on('error', reject);
        up.end(body);
      },
    );
    entry.forwarded = true;
    entry.status = upstream.status;
    if (holdHere === 'before_reply') {
      onHeld(entry);
      return;
    }
    if (entry.fault === 'reset_after') {
      // The service did the work; the client never hears of it and must re-send.
      req.socket.destroy();
      return;
    }
    const { 'transfer-encoding': _te, connection: _c, ...headers } = upstream.headers;
    res.writeHead(upstream.status, { ...headers, 'content-length': String(upstream.body.length) });
    res.end(upstream.body, () => {
      entry.delivered = true;
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname.replace(/\/+$/, '')}`,
    log,
    held,
    arm: (next) => {
      hold = next;
      mediaPosts = 0;
      return new Promise<ProxyEntry>((resolve) => (onHeld = resolve));
    },
    disarm: () => {
      hold = null;
    },
    forwardedIds: (since = 0) =>
      log
        .slice(since)
        .filter((e) => e.forwarded)
        .flatMap((e) => e.ids),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
