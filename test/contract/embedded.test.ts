import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openEmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { describeDurabilityContract } from './suite/durability.js';
import { describeIdempotencyStoreContract } from './suite/idempotency.js';
import { describeProjectStoreContract } from './suite/projects.js';
import { describeRequestClaimContract } from './suite/request-claims.js';
import { describeRequestListContract } from './suite/request-list.js';
import { describeRequestStoreContract } from './suite/requests.js';
import { describeSecretStoreContract } from './suite/secrets.js';
import { describeUsageStoreContract } from './suite/usage.js';

const dir = mkdtempSync(join(tmpdir(), 'ferry-contract-embedded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
// A nested path also checks that missing parent directories are created.
const freshPath = () => join(dir, `case-${++files}`, 'ferry.db');
const makeBackend = async () => openEmbeddedBackend({ path: freshPath() });
const makeStorage = async () => {
  const path = freshPath();
  return { open: async () => openEmbeddedBackend({ path }) };
};

describeRequestStoreContract(makeBackend);
describeRequestListContract(makeBackend);
describeRequestClaimContract(makeBackend);
describeIdempotencyStoreContract(makeBackend);
describeUsageStoreContract(makeBackend);
describeProjectStoreContract(makeBackend);
describeSecretStoreContract(makeBackend);
describeDurabilityContract(makeStorage);
