export { Ferry } from './client/ferry.js';
export type { PagePromise, Page } from './client/pagination.js';
export {
  AuthenticationError, BadRequestError, ConflictError, FerryAbortError, FerryApiError, FerryConnectionError, FerryError,
  FerryTimeoutError, InternalServerError, MethodNotAllowedError, NotFoundError, PayloadTooLargeError, PermissionDeniedError,
  RateLimitError, ServiceUnavailableError, UnprocessableEntityError, UNEXPECTED_RESPONSE,
  type FerryApiErrorFacts, type FerryErrorCode,
} from './errors.js';
export type * from './types.js';
export type { components, operations, paths } from './schema.js';
export { SDK_VERSION } from './version.js';
export * from './webhooks/index.js';
