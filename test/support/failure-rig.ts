import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Api, eventually } from './api-client.js';
import { sharedSelfSignedCertificate } from './certs.js';
import { TEST_SHARDS } from './deployment.js';
import { startDestination } from './destination.js';
import { createProject, newDataDir, startFerry, type FerryProcess } from './ferry-process.js';
import { describeLost, type Arrival, type Fault } from './ledger.js';
import { startLoad, type Load } from './ledger-load.js';
import { Schedules, cron } from './schedule-client.js';
import { watchShards, type ShardWatch } from './shard-watch.js';
import { startProcessGate, type ProcessGate } from './stale-owner-gate.js';

/** One delivering process of the rig, by the name the ledger gives its deliveries. */
export interface RigProcess {
  readonly name: string;
  readonly ferry: FerryProcess;
  readonly watch: ShardWatch;
  readonly api: Api;
  alive: boolean;
  /** Left out of the load while set (the process is cut off from the cluster, see `isolate`). */
  isolated: boolean;
}

/**
 * Two Ferry processes on one deployment, a recording HTTPS destination behind a gate that tells which process sent
 * each attempt, a few schedules firing every minute, and the faults the test caused: what every failure case of
 * test/cluster/ runs its load against and closes its ledger with.
 */
export interface FailureRig {
  readonly dataDir: string;
  readonly processes: RigProcess[];
  readonly faults: Fault[];
  /** The first error lines the processes logged (kafkajs's connection refusals while a broker is down left out). */
  readonly errorLines: readonly string[];
  /**
   * What a report needs when `lost` (acknowledged, never arrived) is not empty: where those requests stand, which
   * shards each live process owns and may deliver, and the processes' last ownership lines.
   */
  describeStall(api: Api, lost: readonly string[]): Promise<string>;
  /** The longest a connection to the destination waited at the gate to be told which process opened it, in ms. */
  slowestGateLookupMs(): number;
  /**
   * The longest this test process's event loop was held up since the last call, in ms: the destination, its gate and
   * the load all run on it, so an attempt that seems slow on the wire may have waited here.
   */
  takeEventLoopStallMs(): number;
  /** The attempts that reached `path` so far (registered on first use). */
  arrivalsAt(path: string): readonly Arrival[];
  /** Attempts of the schedules' requests. */
  readonly scheduleArrivals: readonly Arrival[];
  readonly scheduleIds: readonly string[];
  /** Starts the load on `path` through the live processes. */
  load(path: string): Load;
  /** The destination's URL for `path`, through the gate (arrivals recorded as for a load). */
  url(path: string): string;
  /** An API of a live process (for reading back). */
  api(): Api;
  /** Samples of a shard claimed by two live processes at once, by their logs (two samples in a row, 200 ms apart). */
  readonly ownershipOverlaps: Array<{ at: number; shard: number }>;
  /** Resolves with the time, from `since`, at which the live processes together own every shard once. */
  shardsSettled(since: number, deadlineMs?: number): Promise<number>;
  /** Kills a process with SIGKILL; the load leaves it out from now on. */
  kill(name: string): Promise<void>;
  /** Starts another process in place of a killed one (its name gets a `'`). */
  replace(name: string): Promise<RigProcess>;
  /** Leaves a process out of the load (`true`) or takes it back in; it keeps running either way. */
  isolate(name: string, isolated: boolean): void;
  /**
   * How the destination answers an attempt, by the name of the process that sent it, perhaps only later (the
   * attempt is recorded when answered, as having arrived when it did); default 200 at once for all.
   */
  answerWith(answer: ((from: string) => number | Promise<number>) | null): void;
  close(): Promise<void>;
}

/** `envOf` adds settings of one process, by name (`A`, `B`, or a replacement's). */
export async function startFailureRig(env: Record<string, string>, scheduleCount = 3, envOf: (name: string) => Record<string, string> = () => ({})): Promise<FailureRig> {
  const dest = await startDestination({ record: false });
  const pids: number[] = [];
  const gate: ProcessGate = await startProcessGate(dest.port, sharedSelfSignedCertificate(), pids);
  const dataDir = newDataDir();
  const fullEnv = { FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: dest.certFile, ...env };
  const processes: RigProcess[] = [];
  const errorLines: string[] = [];
  // The last lines the processes logged about what they own and whether they may deliver (assignments, releases,
  // takeovers, the coordinator's silences, warnings): what a stall is read from when the report is all there is.
  const ownershipLines: string[] = [];
  let apiKey = '';
  let answer: ((from: string) => number | Promise<number>) | null = null;

  const byPid = new Map<number, string>();
  const routes = new Map<string, Arrival[]>();
  const record = (path: string, list: Arrival[]): void => {
    dest.on(path, ({ request, res }) => {
      const pid = gate.ownerOf(res.socket?.remotePort);
      const from = (pid !== undefined ? byPid.get(pid) : undefined) ?? 'unknown';
      const at = Date.now();
      const answered = (status: number): void => {
        list.push({
          id: request.headers['service-request-id'] ?? '',
          attempt: Number(request.headers['service-attempt'] ?? 0),
          from,
          at,
          scheduleId: request.headers['service-schedule-id'],
          ...(status !== 200 ? { status } : {}),
        });
        res.writeHead(status).end();
      };
      const status = answer?.(from) ?? 200;
      if (typeof status === 'number') answered(status);
      else void status.then(answered);
    });
  };
  const arrivalsAt = (path: string): Arrival[] => {
    let list = routes.get(path);
    if (!list) {
      list = [];
      routes.set(path, list);
      record(path, list);
    }
    return list;
  };

  const launch = async (name: string): Promise<RigProcess> => {
    const ferry = await startFerry({ dataDir, env: { ...fullEnv, ...envOf(name) } });
    pids.push(ferry.child.pid!);
    byPid.set(ferry.child.pid!, name);
    // Every line goes to a file beside the deployment's data, for what the failure report cannot hold; error lines
    // also to the report, so a failed call in the ledger can be told apart (bounded: the first few per process).
    const logFile = join(dataDir, `ferry-${name}.log`);
    let partial = '';
    ferry.followOutput((text) => {
      appendFileSync(logFile, text);
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const stamped = `${name}: ${line.slice(0, 600)}`;
        if (isOwnershipLine(line)) {
          ownershipLines.push(stamped);
          if (ownershipLines.length > MAX_OWNERSHIP_LINES) ownershipLines.shift();
        }
        if (/"level":"(error|fatal)"|"level":(50|60)/.test(line) && !isRefusedConnection(line) && errorLines.length < 40) errorLines.push(stamped);
      }
    });
    const p: RigProcess = { name, ferry, watch: watchShards(ferry), api: new Api(ferry.baseUrl, apiKey), alive: true, isolated: false };
    processes.push(p);
    return p;
  };
  const live = (): RigProcess[] => processes.filter((p) => p.alive);

  // Two samples in a row: a log line read a few milliseconds late is no overlap. What counts is where attempts may
  // start: a process whose group coordinator went silent (its broker killed, say) still lists its shards until it
  // hears of the new assignment, but starts nothing meanwhile.
  const ownershipOverlaps: Array<{ at: number; shard: number }> = [];
  let suspect = new Set<number>();
  const sampler = setInterval(() => {
    const seen = new Map<number, number>();
    for (const p of live()) for (const s of p.watch.delivering()) seen.set(s, (seen.get(s) ?? 0) + 1);
    const now = new Set([...seen].filter(([, n]) => n > 1).map(([s]) => s));
    for (const s of now) if (suspect.has(s)) ownershipOverlaps.push({ at: Date.now(), shard: s });
    suspect = now;
  }, 200);

  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();

  const close = async (): Promise<void> => {
    clearInterval(sampler);
    loopDelay.disable();
    await Promise.all(live().map((p) => p.ferry.stop()));
    await gate.close();
    await dest.close();
  };

  try {
    ({ apiKey } = await createProject(dataDir, { monthlyAllowance: 10_000_000 }));
    await Promise.all([launch('A'), launch('B')]);
    const rig: FailureRig = {
      dataDir,
      processes,
      faults: [],
      errorLines,
      async describeStall(api, lost) {
        const owners = live().map((p) => `${p.name} owns ${JSON.stringify(p.watch.owned())}, delivers ${JSON.stringify(p.watch.delivering())}`);
        return `${await describeLost(api, lost)}\nnow: ${owners.join('; ')}\nthe processes' last ownership lines:\n${ownershipLines.join('\n')}`;
      },
      slowestGateLookupMs: () => gate.slowestLookupMs,
      takeEventLoopStallMs() {
        const ms = Math.round(loopDelay.max / 1e6);
        loopDelay.reset();
        return ms;
      },
      arrivalsAt,
      scheduleArrivals: arrivalsAt('/ledger/schedules'),
      scheduleIds: [],
      url: (path) => {
        arrivalsAt(path);
        return `${gate.url}${path}`;
      },
      load: (path) => {
        arrivalsAt(path);
        return startLoad(() => live().filter((p) => !p.isolated).map((p) => p.api), `${gate.url}${path}`);
      },
      api: () => live()[0]!.api,
      ownershipOverlaps,
      async shardsSettled(since, deadlineMs = 90_000) {
        return eventually(async () => {
          const all = live().flatMap((p) => p.watch.owned());
          if (all.length !== TEST_SHARDS || new Set(all).size !== TEST_SHARDS) return undefined;
          return Math.max(since, ...live().flatMap((p) => p.watch.takenAt())) - since;
        }, deadlineMs);
      },
      async kill(name) {
        const p = processes.find((q) => q.name === name && q.alive)!;
        p.alive = false;
        await p.ferry.kill();
      },
      async replace(name) {
        return launch(`${name}'`);
      },
      isolate(name, isolated) {
        processes.find((q) => q.name === name && q.alive)!.isolated = isolated;
      },
      answerWith(a) {
        answer = a;
      },
      close,
    };
    await rig.shardsSettled(Date.now());
    const schedules = new Schedules(rig.api());
    for (let i = 0; i < scheduleCount; i++) {
      const created = await schedules.created({ name: `ledger-${i}`, timing: cron('* * * * *'), request: { url: `${gate.url}/ledger/schedules` } });
      (rig.scheduleIds as string[]).push(created.id);
    }
    return rig;
  } catch (err) {
    await close();
    throw err;
  }
}

const MAX_OWNERSHIP_LINES = 60;

/** Ferry's own warnings and its ownership changes; kafkajs's own lines are left out (they come by the dozen). */
function isOwnershipLine(line: string): boolean {
  if (line.includes('"logger":"kafkajs"')) return false;
  return /"level":"(warn|error)"|"msg":"(shards owned|shards released|shard taken over by another process|the group coordinator answers again|shard epoch taken again)"/.test(line);
}

/** A kafkajs connection to a broker the test took down, refused: dozens a second while it is down, nothing new. */
function isRefusedConnection(line: string): boolean {
  return line.includes('"logger":"kafkajs"') && line.includes('ECONNREFUSED');
}
