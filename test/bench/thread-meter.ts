import { readdirSync, readFileSync } from 'node:fs';

/**
 * Per-thread CPU time and run-queue wait of one process between `start` and `stop`, from
 * /proc/<pid>/task/<tid>/schedstat (time on a CPU, time runnable but waiting for one, in ns). A thread that waits
 * long for a CPU shows a machine short of cores; one on a CPU most of the interval is itself the bottleneck.
 */
interface ThreadTimes {
  name: string;
  runNs: number;
  waitNs: number;
}

function threads(pid: number): Map<string, ThreadTimes> {
  const out = new Map<string, ThreadTimes>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      out.set(tid, { name, runNs: run!, waitNs: wait! });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

export interface ThreadUse {
  readonly seconds: number;
  /** Busiest first: share of the interval on a CPU, and share spent runnable but waiting for one. */
  readonly threads: ReadonlyArray<{ tid: string; name: string; onCpu: number; waiting: number }>;
}

export function threadMeter(pid: number | undefined): { stop(): ThreadUse } {
  const t0 = process.hrtime.bigint();
  const before = pid === undefined ? new Map<string, ThreadTimes>() : threads(pid);
  return {
    stop() {
      const ns = Number(process.hrtime.bigint() - t0);
      const after = pid === undefined ? new Map<string, ThreadTimes>() : threads(pid);
      const list = [...after].map(([tid, t]) => {
        const b = before.get(tid) ?? { runNs: 0, waitNs: 0 };
        return { tid, name: t.name, onCpu: (t.runNs - b.runNs) / ns, waiting: (t.waitNs - b.waitNs) / ns };
      });
      list.sort((a, b) => b.onCpu - a.onCpu);
      return { seconds: ns / 1e9, threads: list };
    },
  };
}

/** The threads that did anything, e.g. `node#123 on CPU 61% waiting 20%`. */
export function formatThreads(u: ThreadUse, minShare = 0.02): string {
  const busy = u.threads.filter((t) => t.onCpu >= minShare || t.waiting >= minShare);
  return busy.map((t) => `${t.name}#${t.tid} on CPU ${Math.round(t.onCpu * 100)}% waiting ${Math.round(t.waiting * 100)}%`).join(', ') || 'all idle';
}
