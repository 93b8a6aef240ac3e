/**
 * Accept-path benchmark: POST /send on the embedded default with 64 concurrent connections, next to a bare
 * node:http handler measured in the same run so the ratio holds on a noisy machine.
 *
 * `--telemetry off,on` measures Ferry once per listed setting instead, alternating, `--rounds` times: `off` is
 * FERRY_METRICS_ENABLED=false with FERRY_LOG_LEVEL=warn, `on` the defaults (metrics on, `info`). Each figure is
 * printed with the service's CPU time per request, which other work on a shared machine moves far less than
 * throughput, with the cores that other work kept busy meanwhile, and with the one-minute load average.
 *
 *   npm run build && npx tsx test/bench/accept.ts [--seconds 15] [--connections 64] [--telemetry off,on] [--rounds 3]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { backendEnv, childEnv, prepareStorage } from '../support/deployment.js';
import { createProject, newDataDir, startFerry } from '../support/ferry-process.js';
import { coresOf, cpuMeter } from './cpu-meter.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const seconds = Number(args.get('seconds') ?? 15);
const connections = Number(args.get('connections') ?? 64);
const telemetry = args.get('telemetry')?.split(',') as Array<keyof typeof TELEMETRY> | undefined;
const rounds = Number(args.get('rounds') ?? 1);

const TELEMETRY = {
  off: { FERRY_METRICS_ENABLED: 'false', FERRY_LOG_LEVEL: 'warn' },
  on: {},
} as const;

interface Result {
  rps: number;
  ok: number;
  non2xx: number;
  errors: number;
  p50: number;
  p99: number;
  /** CPU time the service process spent per request answered 2xx (all its threads), when measured. */
  cpuUsPerRequest?: number;
  /** Cores busy with anything but the service and this program (other work on a shared machine), when measured. */
  otherCores?: number;
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

const CLI = resolve(import.meta.dirname, '../../dist/cli/main.js');

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

/**
 * `ferry serve` on ports picked here, ready once `/healthz` answers: at FERRY_LOG_LEVEL=warn it writes no
 * `listening` line, which is what `startFerry` waits for. Both telemetry settings start this way, alike.
 */
async function startOnPorts(env: Record<string, string>): Promise<{ baseUrl: string; dataDir: string; pid: number | undefined; stop(): Promise<unknown> }> {
  const dataDir = newDataDir();
  await prepareStorage(dataDir);
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve'], {
    // No grace at the stop: attempts still under way after the measurement are not worth waiting for.
    env: childEnv({ ...backendEnv(dataDir), FERRY_HTTP_PORT: String(port), FERRY_GRPC_PORT: String(await freePort()), FERRY_SHUTDOWN_GRACE_MS: '0', ...env }),
    stdio: 'ignore',
  });
  const exited = once(child, 'exit');
  const baseUrl = `http://127.0.0.1:${port}`;
  for (const giveUpAt = Date.now() + 40_000; ; ) {
    if (child.exitCode !== null) throw new Error(`ferry exited with ${child.exitCode}`);
    if (await fetch(`${baseUrl}/healthz`).then((r) => r.ok, () => false)) break;
    if (Date.now() > giveUpAt) throw new Error('ferry did not start in time');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    dataDir,
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function ferry(env?: Record<string, string>): Promise<Result> {
  const server = env === undefined ? await startFerry() : await startOnPorts(env);
  try {
    const { apiKey } = await createProject(server.dataDir, { monthlyAllowance: 1_000_000_000 });
    // Warm up the JIT and the key cache before measuring.
    await autocannon({ url: `${server.baseUrl}/send?url=https://example.com/hook`, method: 'POST', connections, duration: 2, headers: { authorization: `Bearer ${apiKey}` }, body: 'warm' });
    // CPU per request moves far less than throughput when other work shares the machine.
    const cpu = cpuMeter([
      ['ferry', 'pid' in server ? server.pid : server.child.pid],
      ['bench', process.pid],
    ]);
    const measured = await load(`${server.baseUrl}/send?url=${encodeURIComponent('https://example.com/hook')}&retry=3`, {
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'x-forward-x-trace': 'bench' },
      body: JSON.stringify({ event: 'order.created', id: 42, padding: 'x'.repeat(64) }),
    });
    const used = cpu.stop();
    const ferryCores = coresOf(used, 'ferry');
    const otherCores = Math.max(0, used.machine * used.cpus - ferryCores - coresOf(used, 'bench'));
    return { ...measured, cpuUsPerRequest: (ferryCores * used.seconds * 1e6) / Math.max(1, measured.ok), otherCores };
  } finally {
    await server.stop();
  }
}

const fmt = (r: Result) =>
  `${Math.round(r.rps).toLocaleString('en')} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, 2xx ${r.ok}, non-2xx ${r.non2xx}, errors ${r.errors}` +
  (r.cpuUsPerRequest === undefined ? '' : `, service CPU ${Math.round(r.cpuUsPerRequest)} µs/request`) +
  (r.otherCores === undefined ? '' : `, other work ${r.otherCores.toFixed(2)} cores`);

const load1 = () => loadavg()[0]!.toFixed(2);

if (telemetry === undefined) {
  const baseline = await bare();
  console.log(`bare node:http  ${fmt(baseline)}`);
  const measured = await ferry();
  console.log(`ferry POST /send ${fmt(measured)}`);
  console.log(`ratio ferry / bare: ${(measured.rps / baseline.rps).toFixed(2)}`);
} else {
  for (const name of telemetry) if (!(name in TELEMETRY)) throw new Error(`--telemetry takes off and on, got ${name}`);
  const figures = new Map<string, number[]>(telemetry.map((name) => [name, []]));
  const cpuFigures = new Map<string, number[]>(telemetry.map((name) => [name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const name of telemetry) {
      const before = load1();
      const measured = await ferry({ ...TELEMETRY[name] });
      figures.get(name)!.push(measured.rps);
      cpuFigures.get(name)!.push(measured.cpuUsPerRequest ?? NaN);
      console.log(`round ${round} telemetry ${name.padEnd(3)} ${fmt(measured)} (load ${before} before, ${load1()} after)`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [name, xs] of figures) {
    const cpu = median(cpuFigures.get(name)!);
    console.log(`telemetry ${name}: median ${Math.round(median(xs)).toLocaleString('en')} req/s, ${Math.round(cpu)} µs CPU/request over ${xs.length} run(s)`);
  }
  const off = figures.get('off');
  const on = figures.get('on');
  if (off !== undefined && on !== undefined) {
    console.log(`ratio on / off (medians): throughput ${(median(on) / median(off)).toFixed(3)}, CPU per request ${(median(cpuFigures.get('on')!) / median(cpuFigures.get('off')!)).toFixed(3)}`);
  }
}
