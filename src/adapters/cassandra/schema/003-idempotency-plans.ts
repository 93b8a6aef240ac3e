import type { Migration } from './migration.js';

/** The requests a claim's holder set out to create, so a holder taking the claim over finishes that work. */
export const idempotencyPlans: Migration = {
  version: 3,
  name: 'idempotency plans',
  statements: ['ALTER TABLE idempotency_keys ADD IF NOT EXISTS plan text'],
};
