import type { Migration } from './migration.js';

/**
 * When each API key last authenticated a call, for the operator's key listing. Written at most once a minute per
 * key and process, never once per call.
 */
export const keyLastUse: Migration = {
  version: 7,
  name: 'key last use',
  statements: ['ALTER TABLE api_keys ADD IF NOT EXISTS last_used_at bigint'],
};
