export * from './limits.js';
export * from './patterns.js';
export { FIELD_RULES, type FieldRule } from './field-rules.js';
export { validateDestinationUrl, isPublicAddress, type DestinationOptions } from './url.js';
export { parseDelay, parseTimeout, parseRfc3339, resolveDeliveryTime, formatDuration } from './durations.js';
export { validateDestinationHeaders, validateContentType, isFieldValue } from './headers.js';
export { validateMetadata } from './metadata.js';
export { validateCallbacks, validateCallbackHeaders, type CallbacksInput } from './callbacks.js';
export { validateFlowKey, validateFlowKeys, parseFlowKeysHeader } from './flow-keys.js';
export { validateBudgetLimits, validateBudgetName, parsePeriod, MAX_BURST, type BudgetLimitsInput } from './budget-limits.js';
export { JsonText } from './json-text.js';
export {
  validateSend,
  validateCreate,
  validateBatch,
  validateIdempotencyKey,
  validateDefinition,
  validateMethod,
  validateQueue,
  validateRetryCount,
  type SendInput,
  type CreateInput,
  type BatchItemInput,
  type ValidatedRequest,
  type ValidationOptions,
} from './request-input.js';
export { validateListQuery, validatePageSize, validateResponseStatusCode, type ListQuery, type ListQueryInput } from './list-query.js';
export {
  parseCaptureResponseBodies,
  validateProjectChanges,
  validateProjectName,
  validateProjectSetting,
  MAX_PROJECT_NAME_BYTES,
  PROJECT_SETTING_RANGES,
  type ProjectSettingName,
} from './project-settings.js';
export { validateTiming, type TimingInput } from './timing.js';
export { validateSchedulePolicy, type SchedulePolicyInput } from './schedule-policy.js';
export {
  validateCreateSchedule,
  validateUpdateSchedule,
  validateScheduleName,
  validatePreview,
  validateScheduleListLimit,
  type CreateScheduleInput,
  type UpdateScheduleInput,
  type ScheduleRequestInput,
  type PreviewInput,
  type ValidPreview,
} from './schedule-input.js';
export { validateBulkAction, type BulkActionInput, type BulkFilterInput, type ValidBulkAction, type ValidBulkSelection } from './bulk-input.js';
export { validateBackfill, type BackfillInput } from './backfill.js';
