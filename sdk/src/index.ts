export { createFerryClient, type FerryClient, type FerryClientOptions } from './client.js';
export { FerryApiError, type FerryErrorCode, UNEXPECTED_RESPONSE } from './errors.js';
export type * from './types.js';
export type { components, operations, paths } from './schema.js';
