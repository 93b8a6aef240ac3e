/**
 * Memory soak: a steady stream of requests (default 100,000 over 10 minutes) to a loopback destination that
 * fails half of the attempts (HTTP 503), with retries. Samples the server's resident memory every 10 s and
 * prints the series; memory should stay flat while work keeps flowing.
 *
 *   npm run build && npx tsx test/bench/soak.ts [--requests 100000] [--minutes 10]
 */
import { readFileSync } from 'node:fs';
import { Api } from '../support/api-client.js';
import { replies, startDestination } from '../support/destination.js';
import { createProject, startFerry } from '../support/ferry-process.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const total = Number(args.get('requests') ?? 100_000);
const minutes = Number(args.get('minutes') ?? 10);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
}

// The destination keeps no record of requests here: a soak must not grow the load generator either.
const dest = await startDestination({ record: false });
dest.on('/soak', (x) => (Math.random() < 0.5 ? replies.status(503)(x) : replies.status(200)(x)));
const ferry = await startFerry({
  env: { FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: dest.certFile, FERRY_RETRY_BASE_MS: '200', FERRY_RETRY_CAP_MS: '5000' },
});
const { apiKey } = await createProject(ferry.dataDir, { monthlyAllowance: 1_000_000_000 });
const api = new Api(ferry.baseUrl, apiKey);
const pid = ferry.child.pid!;

const durationMs = minutes * 60_000;
const start = Date.now();
let sent = 0;
const samples: string[] = [];
const sampler = setInterval(() => {
  const elapsed = Math.round((Date.now() - start) / 1000);
  samples.push(`${elapsed}s: rss ${rssMb(pid)} MB, accepted ${sent}`);
  console.log(samples.at(-1));
}, 10_000);

try {
  while (sent < total) {
    const due = Math.min(total, Math.floor(((Date.now() - start) / durationMs) * total));
    const batch = Math.min(100, due - sent);
    if (batch <= 0) {
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    const res = await api.call('POST', '/requests/batch', {
      json: { requests: Array.from({ length: batch }, () => ({ url: `${dest.url}/soak`, retry: { max_attempts: 4 } })) },
      headers: { 'idempotency-key': `soak-${sent}` },
    });
    if (res.status !== 202) throw new Error(`batch answered ${res.status}`);
    sent += batch;
  }
  const drainUntil = Date.now() + 60_000;
  for (;;) {
    const active = await api.call<{ items: unknown[] }>('GET', '/requests?status=queued&limit=1');
    const delivering = await api.call<{ items: unknown[] }>('GET', '/requests?status=delivering&limit=1');
    if ((active.body.data.items.length === 0 && delivering.body.data.items.length === 0) || Date.now() > drainUntil) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(`soak done: ${sent} requests in ${Math.round((Date.now() - start) / 1000)} s; final rss ${rssMb(pid)} MB`);
} finally {
  clearInterval(sampler);
  await ferry.stop();
  await dest.close();
}
