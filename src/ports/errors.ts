/** Raised by any adapter when storage cannot durably apply an operation; the API answers 503. */
export class StorageUnavailable extends Error {
  override readonly name = 'StorageUnavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
