export { verifyDelivery, type VerifyDeliveryOptions, type VerifiedDelivery } from './verify.js';
export type { DeliveryHeaders } from './headers.js';
export {
  WebhookVerificationError,
  MissingHeaderError,
  InvalidHeaderError,
  StaleTimestampError,
  FutureTimestampError,
  NoMatchingSignatureError,
} from './errors.js';
