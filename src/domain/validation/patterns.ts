import { FLOW_KEY, MAX_FLOW_KEYS } from '../flow/budgets.js';

/**
 * The regular expressions input is checked against, shared by validation and the OpenAPI document (as JSON Schema
 * `pattern`s, ECMA-262 like these), so both refuse the same spellings.
 */

// No sign, no leading zeros, no spaces, no fractions: one spelling per duration keeps fingerprints stable.
export const DELAY_PATTERN = /^(0|[1-9][0-9]{0,15})([smhd])$/;
export const TIMEOUT_PATTERN = /^(0|[1-9][0-9]{0,15})([sm])$/;

export const QUEUE_PATTERN = /^[A-Za-z0-9._-]+$/;

export const FLOW_KEY_PATTERN = FLOW_KEY;

// The `Flow-Keys` header: one to MAX_FLOW_KEYS keys separated by commas, spaces and tabs allowed around each.
const KEY_IN_HEADER = `[ \\t]*${FLOW_KEY.source.slice(1, -1)}[ \\t]*`;
export const FLOW_KEYS_HEADER_PATTERN = new RegExp(`^${KEY_IN_HEADER}(?:,${KEY_IN_HEADER}){0,${MAX_FLOW_KEYS - 1}}$`);

// ASCII only, so characters and bytes agree and the key length limit reads the same in either unit.
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9._-]+$/;

// RFC 9110 section 5.6.2 token.
export const HEADER_NAME_PATTERN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

// RFC 9110 section 5.5 field-value: visible ASCII, space, tab and obs-text. Anything above U+00FF has no single-octet
// encoding on the wire, and HTTP clients refuse it at send time; refusing it here reports it to the caller instead.
export const HEADER_VALUE_PATTERN = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;

// RFC 9110 section 8.3.1 media-type: type "/" subtype, then parameters, each `; name=value` with a token or a
// quoted-string value (an empty `;` is allowed). Surrounding spaces and tabs are allowed, as in any field value.
// Each run of spaces can be matched one way only, so a long refused value costs linear time, not exponential.
const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const QUOTED_STRING = '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*"';
export const MEDIA_TYPE_PATTERN = new RegExp(
  `^[ \\t]*${TOKEN}/${TOKEN}(?:[ \\t]*;(?:[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED_STRING}))?)*[ \\t]*$`,
);

/** The backoff curves `retry.backoff` takes. */
export const RETRY_BACKOFFS = ['exponential'] as const;

/** The kinds of schedule timing, each with its own members. */
export const TIMING_TYPES = ['cron', 'interval'] as const;
