import { FerryError } from '../errors.js';
import type { RequestCallbacks } from '../request.js';
import { validateDestinationUrl, type DestinationOptions } from './url.js';

/** Callbacks as a caller gives them: a URL per ending, either absent. */
export interface CallbacksInput {
  onSuccess?: string;
  onFailure?: string;
}

/**
 * A request's callbacks: each URL refused exactly as a destination is (Ferry delivers to it like one), named by its
 * field (`callbacks.on_success`); null when none are given. An object given with neither URL is refused: it says
 * nothing, and is most likely a mistyped name.
 */
export function validateCallbacks(input: CallbacksInput | undefined, opts: DestinationOptions, field = 'callbacks'): RequestCallbacks | null {
  if (input === undefined || input === null) return null;
  const given = (url: string | undefined) => url !== undefined && url !== null && url !== '';
  if (!given(input.onSuccess) && !given(input.onFailure)) {
    throw new FerryError('INVALID_FIELD', `${field} must name on_success, on_failure or both.`, field);
  }
  return {
    onSuccess: given(input.onSuccess) ? validateDestinationUrl(input.onSuccess!, opts, `${field}.on_success`) : null,
    onFailure: given(input.onFailure) ? validateDestinationUrl(input.onFailure!, opts, `${field}.on_failure`) : null,
  };
}

/** `/send`'s `Callback-On-Success` and `Callback-On-Failure` headers, refused under their own names. */
export function validateCallbackHeaders(onSuccess: string | undefined, onFailure: string | undefined, opts: DestinationOptions): RequestCallbacks | null {
  if (onSuccess === undefined && onFailure === undefined) return null;
  return {
    onSuccess: onSuccess === undefined ? null : validateDestinationUrl(onSuccess, opts, 'Callback-On-Success'),
    onFailure: onFailure === undefined ? null : validateDestinationUrl(onFailure, opts, 'Callback-On-Failure'),
  };
}
