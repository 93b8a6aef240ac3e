// Throughput of request inserts through the embedded backend's group commit.
// Usage: tsx test/bench/embedded-store.ts [directory for the database file, default: the OS temp directory]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import type { StoredRequest } from '../../src/domain/request.js';
import { aRequest } from '../contract/suite/harness.js';

const dir = mkdtempSync(join(process.argv[2] ?? tmpdir(), 'ferry-bench-'));
const backend = openEmbeddedBackend({ path: join(dir, 'bench.db') });
const body = new TextEncoder().encode(JSON.stringify({ event: 'invoice.paid', amount: 4200, currency: 'EUR', note: 'x'.repeat(400) }));
/** A realistic stored request: a small JSON body, two headers, metadata, due now. */
function request(): StoredRequest {
  const now = Date.now();
  return aRequest({
    projectId: 'prj_bench',
    url: 'https://hooks.example.com/billing',
    headers: [['Authorization', 'Bearer abc'], ['X-Event', 'invoice.paid']],
    body,
    contentType: 'application/json',
    metadata: { customer: 'cus_123' },
    dueAt: now,
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * Runs `total` calls with at most `inFlight` outstanding and reports requests stored per second, and how busy
 * the calling thread's event loop was meanwhile: the time it could not serve anything else.
 */
async function measure(label: string, total: number, inFlight: number, perCall: number): Promise<void> {
  const loopBefore = performance.eventLoopUtilization();
  const started = performance.now();
  let issued = 0;
  const worker = async () => {
    while (issued < total) {
      issued += 1;
      await backend.requests.insertMany(Array.from({ length: perCall }, request));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  const perSecond = Math.round((total * perCall) / seconds);
  const busy = Math.round(performance.eventLoopUtilization(loopBefore).utilization * 100);
  console.log(`${label.padEnd(40)} ${String(perSecond).padStart(7)} requests/s  (${(seconds * 1000).toFixed(0)} ms, event loop ${busy}% busy)`);
}

try {
  // Opening starts the writer thread; its start-up is not what is measured.
  await backend.requests.insertMany([request()]);
  await measure('one at a time (a commit per insert)', 300, 1, 1);
  await measure('single inserts, 100 in flight', 20_000, 100, 1);
  await measure('single inserts, 2,000 in flight', 50_000, 2_000, 1);
  await measure('batches of 100, 20 in flight', 500, 20, 100);
} finally {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
}
