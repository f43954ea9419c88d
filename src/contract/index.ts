export * from './errors.js';
export * from './events.js';
export * from './ingest.js';
export * from './media.js';
export * from './paths.js';
export * from './service.js';
export * from './stats.js';
export * from './users.js';
