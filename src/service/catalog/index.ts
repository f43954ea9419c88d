export { loadCatalog, demoCatalogPath, packageRoot, DEMO_CATALOG_RELATIVE_PATH } from './load.js';
export { parseCatalog } from './parse.js';
export { toWireEvent, toWireVenue, toWirePerformers, isVisibleEvent } from './expand.js';
export { createZoneClock, isValidZone, type ZoneClock } from './zone-clock.js';
export { DEFAULT_RADIUS_M, MAX_RADIUS_M } from './schema.js';
export type * from './types.js';
