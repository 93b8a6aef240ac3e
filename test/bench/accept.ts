/**
 * Accept-path benchmark: POST /send on the embedded default with 64 concurrent connections, next to a bare
 * node:http handler measured in the same run so the ratio holds on a noisy machine.
 *
 *   npm run build && npx tsx test/bench/accept.ts [--seconds 15] [--connections 64]
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { createProject, startFerry } from '../support/ferry-process.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const seconds = Number(args.get('seconds') ?? 15);
const connections = Number(args.get('connections') ?? 64);

interface Result {
  rps: number;
  ok: number;
  non2xx: number;
  errors: number;
  p50: number;
  p99: number;
}

async function load(url: string, opts: { headers?: Record<string, string>; body?: string }): Promise<Result> {
  const r = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: seconds,
    headers: opts.headers,
    body: opts.body,
  });
  return {
    rps: r.requests.average,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    p50: r.latency.p50,
    p99: r.latency.p99,
  };
}

async function bare(): Promise<Result> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const http=require('node:http');const s=http.createServer((q,r)=>{q.resume();q.on('end',()=>{r.writeHead(202,{'content-type':'application/json'});r.end('{"success":true}')})});s.listen(0,'127.0.0.1',()=>console.log(s.address().port))`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((res) => child.stdout!.once('data', (d: Buffer) => res(Number(d.toString().trim()))));
  try {
    return await load(`http://127.0.0.1:${port}/send`, { body: 'x'.repeat(128) });
  } finally {
    child.kill();
  }
}

async function ferry(): Promise<Result> {
  const server = await startFerry();
  try {
    const { apiKey } = await createProject(server.dataDir, { monthlyAllowance: 1_000_000_000 });
    // Warm up the JIT and the key cache before measuring.
    await autocannon({ url: `${server.baseUrl}/send?url=https://example.com/hook`, method: 'POST', connections, duration: 2, headers: { authorization: `Bearer ${apiKey}` }, body: 'warm' });
    return await load(`${server.baseUrl}/send?url=${encodeURIComponent('https://example.com/hook')}&retry=3`, {
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'x-forward-x-trace': 'bench' },
      body: JSON.stringify({ event: 'order.created', id: 42, padding: 'x'.repeat(64) }),
    });
  } finally {
    await server.stop();
  }
}

const fmt = (r: Result) =>
  `${Math.round(r.rps).toLocaleString('en')} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, 2xx ${r.ok}, non-2xx ${r.non2xx}, errors ${r.errors}`;

const baseline = await bare();
console.log(`bare node:http  ${fmt(baseline)}`);
const measured = await ferry();
console.log(`ferry POST /send ${fmt(measured)}`);
console.log(`ratio ferry / bare: ${(measured.rps / baseline.rps).toFixed(2)}`);
void ({} as AddressInfo);
