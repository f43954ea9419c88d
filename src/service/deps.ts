import type { Catalog } from './catalog/index.js';
import type { CursorCodec } from './cursor.js';
import type { PartnerKey } from './keys.js';
import type { PlannedIngest } from './ingest.js';
import type { IngestPlanner } from './ingest-threads.js';
import type { Store } from './store/types.js';

/** What the route handlers share; built once per app. */
export interface ServiceDeps {
  store: Store;
  catalog: Catalog;
  /** Parses and matches ingest batches (in this thread or in ingest threads). */
  ingest: IngestPlanner;
  cursors: CursorCodec;
  /** Milliseconds since the epoch; tests pass a fixed or stepping clock. */
  clock: () => number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated partner key (null on open routes). */
    partnerKey: PartnerKey | null;
    /** The error code the request was answered with, for request logs (null on success). */
    errorCode: string | null;
    /** An ingest batch's plan, made as its body is read (null on every other route). */
    ingestPlan: PlannedIngest | null;
    /** Frees the request's place in the admission queue before its answer (null when it holds none). */
    leaveQueue: (() => void) | null;
  }
  interface FastifyContextConfig {
    /** No key needed (GET /ping). */
    open?: boolean;
    /** The handler gets the JSON body as bytes (a Buffer, or undefined when empty) and parses it itself. */
    rawJsonBody?: boolean;
  }
}
