import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../support/api-client.js';
import { backendEnv, childEnv, prepareStorage, TEST_BACKEND } from '../support/deployment.js';
import { createProject, newDataDir, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { EXAMPLE_PRELUDE, readmeShellExamples, ROOT, runnableExample } from '../support/readme-examples.js';

const execFileAsync = promisify(execFile);

/**
 * The README's examples, run as written against a real server: the shell blocks of "First steps", the JSON HTTP
 * API, gRPC and Schedules run in order in one shell (a later block uses the key and variables of an earlier one),
 * with only placeholders and ports replaced. Every call must answer below 400.
 *
 * Not run here: "The two commands" (CI runs exactly them, `.ci/run`), and "Running distributed", which the
 * Cassandra project runs on its own below.
 */
const IN_ORDER = ['First steps', 'The JSON HTTP API by example', 'gRPC', 'Bulk cancel and bulk replay', 'Schedules'];
const RUN_ELSEWHERE = ['The two commands', 'Running distributed (Cassandra + Kafka)'];

// Backend-agnostic: once, on the embedded default; the Cassandra project runs only the distributed example.
describe.runIf(TEST_BACKEND === 'embedded')('README examples', () => {
  let ferry: FerryProcess;
  let work: string;

  beforeAll(async () => {
    ferry = await startFerry({ dataDir: newDataDir() });
    work = mkdtempSync(join(tmpdir(), 'ferry-readme-'));
  });
  afterAll(async () => {
    await ferry?.stop();
  });

  it('every shell block is either run here or named as run elsewhere', () => {
    const sections = readmeShellExamples().map((e) => e.section);
    for (const s of sections) expect([...IN_ORDER, ...RUN_ELSEWHERE]).toContain(s);
    for (const s of IN_ORDER) expect(sections).toContain(s);
  });

  it('the first steps, the API, gRPC and schedule examples all succeed', async () => {
    const ports = { http: Number(new URL(ferry.baseUrl).port), grpc: Number(ferry.grpcAddress.split(':')[1]) };
    const blocks = readmeShellExamples().filter((e) => IN_ORDER.includes(e.section));
    const script = join(work, 'examples.sh');
    writeFileSync(script, [EXAMPLE_PRELUDE, ...blocks.map((b) => `# --- ${b.section}\n${runnableExample(b.code, ports)}`)].join('\n'));
    const calls = join(work, 'calls.txt');
    writeFileSync(calls, '');
    const result = await execFileAsync('bash', [script], {
      cwd: ROOT,
      env: childEnv({ ...backendEnv(ferry.dataDir), EXAMPLE_CALLS: calls, EXAMPLE_CLI_OUT: join(work, 'cli.json') }),
      maxBuffer: 16 * 1024 * 1024,
      timeout: 120_000,
    }).catch((err: { stdout?: string; stderr?: string }) => {
      throw new Error(`README example failed:\n${err.stderr ?? ''}\n--- stdout:\n${err.stdout ?? ''}`);
    });
    const statuses = readFileSync(calls, 'utf8').trim().split('\n');
    // Every curl line of the API and schedule examples ran (none skipped by a shell mistake).
    const curlLines = blocks.flatMap((b) => b.code.split('\n')).filter((l) => /^curl /.test(l.trim())).length;
    expect(statuses).toHaveLength(curlLines);
    expect(result.stdout).toContain('"success":true');
  }, 180_000);

  // Backend-agnostic: run once.
  it('the retry budgets table says what each entry point stores', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Retry budgets'), readme.indexOf('### Verifying signatures'));
    const rows = Object.fromEntries(section.split('\n').filter((l) => /^\| `(POST|GET)/.test(l)).map((line) => {
      const [, , field, counts, absent, range] = line.split('|').map((cell) => cell.trim());
      const [min, max] = range!.split('–').map(Number);
      return [field!.replaceAll('`', ''), { counts: counts!, absent: absent === '' ? undefined : Number.parseInt(absent!, 10), min, max }];
    }));
    expect(Object.keys(rows)).toEqual(['retry', 'retry.max_attempts', 'request.retry', 'none']);
    const api = new Api(ferry.baseUrl, (await createProject(ferry.dataDir)).apiKey);
    const later = { url: 'https://example.com/budget', delay: '1h' };
    /** The max_attempts a call stored, or its error code. */
    type Answer = { status: number; body: { data: unknown; error: { code: string } | null } };
    const stored = async (pending: Answer | Promise<Answer>) => {
      const res = await pending;
      if (res.status >= 300) return res.body.error!.code;
      const { id } = res.body.data as { id: string };
      return ((await api.call('GET', `/requests/${id}`)).body.data as { max_attempts: number }).max_attempts;
    };
    const send = (retry?: number) => stored(api.send({ ...later, ...(retry === undefined ? {} : { retry: String(retry) }) }));
    const create = (maxAttempts?: number) => stored(api.create({ ...later, ...(maxAttempts === undefined ? {} : { retry: { max_attempts: maxAttempts } }) }));
    const batch = async () => {
      const res = await api.call('POST', '/requests/batch', { json: { requests: [later] }, headers: { 'Idempotency-Key': `budget-${Date.now()}` } });
      return stored({ ...res, body: { ...res.body, data: (res.body.data as { requests: unknown[] }).requests[0] } });
    };
    const schedule = async (retry?: number) => {
      const request = { url: later.url, ...(retry === undefined ? {} : { retry }) };
      const res = await api.call('POST', '/schedules', {
        json: { name: 'budget', timing: { type: 'interval', every_seconds: 3600 }, request },
        headers: { 'Idempotency-Key': `budget-${retry}-${Date.now()}` },
      });
      return res.status >= 300 ? res.body.error!.code : (res.body.data as { retry: number }).retry;
    };

    // Retries: the request holds one attempt more than it asked for.
    const { retry: sendRow, 'retry.max_attempts': createRow, 'request.retry': scheduleRow } = rows;
    expect(sendRow!.counts).toBe('retries after the first attempt');
    expect([await send(), await send(sendRow!.min), await send(sendRow!.max)]).toEqual([sendRow!.absent! + 1, sendRow!.min! + 1, sendRow!.max! + 1]);
    expect([await send(sendRow!.min! - 1), await send(sendRow!.max! + 1)]).toEqual(['INVALID_RETRY', 'INVALID_RETRY']);
    // Attempts: the request holds what it asked for.
    expect(createRow!.counts).toBe('attempts, the first included');
    expect([await create(), await batch(), await create(createRow!.min), await create(createRow!.max)])
      .toEqual([createRow!.absent, createRow!.absent, createRow!.min, createRow!.max]);
    expect([await create(createRow!.min! - 1), await create(createRow!.max! + 1)]).toEqual(['INVALID_RETRY', 'INVALID_RETRY']);
    // A schedule keeps its retry count; each occurrence's request gets one attempt more (see the firing tests).
    expect(scheduleRow!.counts).toMatch(/^retries after the first attempt/);
    expect([await schedule(), await schedule(scheduleRow!.min), await schedule(scheduleRow!.max)]).toEqual([scheduleRow!.absent, scheduleRow!.min, scheduleRow!.max]);
    expect([await schedule(scheduleRow!.min! - 1), await schedule(scheduleRow!.max! + 1)]).toEqual(['INVALID_RETRY', 'INVALID_RETRY']);
    // A replay keeps the original's budget.
    const original = await api.create({ ...later, retry: { max_attempts: 5 } });
    const { id } = original.body.data as { id: string };
    await api.call('POST', `/requests/${id}/cancel`);
    expect(await stored(await api.call('POST', `/requests/${id}/replay`))).toBe(5);
  });
});

describe.runIf(TEST_BACKEND === 'cassandra')('README distributed example', () => {
  it('migrates and starts two processes that both serve the API', async () => {
    const dataDir = newDataDir();
    // The scratch deployment's keyspace and topic (dropped after the run); the block sets the rest itself.
    await prepareStorage(dataDir);
    const [block] = readmeShellExamples().filter((e) => e.section === RUN_ELSEWHERE[1]);
    const ports = await freePorts(4);
    const script = [
      'set -euo pipefail',
      "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
      block!.code
        // The suite has built the code already; building again would rewrite dist/ under the other tests.
        .replaceAll('npm run build && ', '')
        .replaceAll('=8080', `=${ports[0]}`)
        .replaceAll('=8081', `=${ports[1]}`)
        .replaceAll('=8090', `=${ports[2]}`)
        .replaceAll('=8091', `=${ports[3]}`),
      `node dist/cli/main.js project create --name readme > "$EXAMPLE_CLI_OUT"`,
      'key=$(jq -r .api_key "$EXAMPLE_CLI_OUT")',
      // Each process answers an authenticated call once it has started.
      ...[ports[0], ports[2]].map(
        (port) =>
          `for i in $(seq 1 240); do code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" http://127.0.0.1:${port}/requests || true); [ "$code" = 200 ] && break; sleep 0.25; done; [ "$code" = 200 ] || { echo "port ${port} answered $code" >&2; exit 1; }`,
      ),
    ].join('\n');
    const env = childEnv({ ...backendEnv(dataDir), EXAMPLE_CLI_OUT: join(mkdtempSync(join(tmpdir(), 'ferry-readme-')), 'cli.json') });
    await execFileAsync('bash', ['-c', script], { cwd: ROOT, env, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 }).catch(
      (err: { stdout?: string; stderr?: string }) => {
        throw new Error(`README distributed example failed:\n${err.stderr ?? ''}\n--- stdout:\n${err.stdout ?? ''}`);
      },
    );
  }, 180_000);
});

async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () => new Promise<Server>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => resolve(server));
    })),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}
