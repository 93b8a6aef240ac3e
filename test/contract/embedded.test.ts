import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openEmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { describeBackendContracts } from './suite/all.js';

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

describeBackendContracts(makeBackend, makeStorage);
