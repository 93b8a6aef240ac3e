/**
 * `schedules.ts --mode idle`: the CPU of an idle embedded `ferry serve` with no schedule, then with many daily
 * schedules none of which falls due during the run, then after deleting them all, same process.
 */
import { Api } from '../support/api-client.js';
import { createProject, startFerry } from '../support/ferry-process.js';
import { cpuMeter } from './cpu-meter.js';
import { startReceiver } from './receiver.js';
import { createSchedules } from './schedules-firing.js';
import { cpuMs, ferryEnv, followLog, forEachBounded, formatLog, memoryOf, sleep, type BenchOptions } from './schedules-measure.js';
import { threadMeter } from './thread-meter.js';

/** A zone where 03:00 is at least `hours` away, so a daily `0 3 * * *` cannot fall due during the run. */
function zoneAwayFrom3am(hours: number): string {
  for (const zone of ['UTC', 'Asia/Tokyo', 'Europe/Berlin', 'America/New_York', 'Pacific/Auckland', 'Asia/Kolkata']) {
    const hour = Number(new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', hourCycle: 'h23' }).format(new Date()));
    const untilThree = (3 - hour + 24) % 24;
    if (untilThree > hours) return zone;
  }
  throw new Error('no zone found');
}

export async function idle(opts: BenchOptions): Promise<void> {
  const { scheduleCount, concurrency } = opts;
  const dest = await startReceiver();
  const ferry = await startFerry({ env: ferryEnv(dest.certFile, opts) });
  try {
    const log = followLog(ferry);
    const { apiKey } = await createProject(ferry.dataDir, { name: 'b', scheduleAllowance: Math.max(20_000, scheduleCount), monthlyAllowance: 100_000_000 });
    const api = new Api(ferry.baseUrl, apiKey);
    // One authenticated call first, so both measurements see a process that has served the API.
    await api.call('GET', '/schedules?limit=1');
    const measure = async (label: string) => {
      await sleep(opts.settleMs);
      const m = cpuMeter([['ferry', ferry.child.pid], ['bench', process.pid]]);
      const t = threadMeter(ferry.child.pid);
      await sleep(opts.idleMs);
      const cpu = m.stop();
      const th = t.stop();
      const mem = memoryOf(ferry.child.pid);
      // From schedstat (ns), finer than the 10 ms ticks of /proc/<pid>/stat.
      const msPerSecond = th.threads.reduce((sum, x) => sum + x.onCpu, 0) * 1000;
      console.log(
        `${label}: ferry ${msPerSecond.toFixed(2)} ms CPU per second over ${th.seconds.toFixed(0)} s ` +
          `(ticks: ${(cpuMs(cpu, 'ferry') / cpu.seconds).toFixed(2)} ms/s; machine ${Math.round(cpu.machine * 100)}% of ${cpu.cpus} cores); RSS ${mem.rss} MiB; ` +
          `threads: ${th.threads.filter((x) => x.onCpu > 0).map((x) => `${x.name}#${x.tid} ${(x.onCpu * 1000).toFixed(2)} ms/s`).join(', ')}`,
      );
      return { msPerSecond, rss: mem.rss };
    };
    const empty = await measure('idle, no schedules');
    const zone = zoneAwayFrom3am(3);
    console.log(`creating ${scheduleCount} schedules "0 3 * * *" in ${zone} …`);
    const created = await createSchedules(api, scheduleCount, concurrency, (i) => ({
      name: `daily-${i}`,
      timing: { type: 'cron', expression: '0 3 * * *', timezone: zone },
      request: { url: `${dest.url}/daily`, body: { i } },
    }));
    console.log(`  created in ${created.ms} ms (${Math.round((scheduleCount / created.ms) * 1000)}/s, ${created.retries} retries)`);
    const loaded = await measure(`idle, ${scheduleCount} daily schedules`);
    // The same process with no schedule again, past its start-up (the first figure may still hold some of it).
    const deleteStart = Date.now();
    let refused = 0;
    await forEachBounded(created.ids.length, concurrency, async (i) => {
      const res = await api.call('DELETE', `/schedules/${created.ids[i]}`);
      if (res.status >= 300) refused++;
    });
    console.log(`  deleted in ${Date.now() - deleteStart} ms (${refused} refused)`);
    const emptied = await measure('idle, all schedules deleted');
    console.log(`deliveries during the run (must be 0): ${dest.count()}; log: ${formatLog(log)}`);
    console.log(
      `\nSUMMARY idle: ferry ${empty.msPerSecond.toFixed(2)} ms CPU/s with no schedules (fresh process), ${loaded.msPerSecond.toFixed(2)} ms CPU/s with ${scheduleCount} daily schedules, ` +
        `${emptied.msPerSecond.toFixed(2)} ms CPU/s after deleting them; RSS ${empty.rss} → ${loaded.rss} → ${emptied.rss} MiB`,
    );
  } finally {
    await ferry.stop();
    await dest.close();
  }
}
