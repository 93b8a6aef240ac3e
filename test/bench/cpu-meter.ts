import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** utime + stime of a process, in clock ticks; null once it is gone. */
function processTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** Busy and total ticks of the whole machine. */
function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  const idle = cpu[3]! + (cpu[4] ?? 0);
  return { busy: total - idle, total };
}

export interface CpuUse {
  /** Cores busy on average over the interval, per named process (1.0 = one core fully). */
  readonly cores: ReadonlyArray<readonly [string, number]>;
  /** Busy share of the whole machine, 0..1. */
  readonly machine: number;
  readonly cpus: number;
  /** Length of the interval. */
  readonly seconds: number;
}

/** Measures CPU use of named processes between `start` and `stop`. */
export function cpuMeter(targets: ReadonlyArray<readonly [string, number | null | undefined]>): { stop(): CpuUse } {
  const t0 = Date.now();
  const m0 = machineTicks();
  const before = targets.map(([name, pid]) => [name, pid, pid == null ? null : processTicks(pid)] as const);
  return {
    stop() {
      const seconds = (Date.now() - t0) / 1000;
      const m1 = machineTicks();
      const cpus = readFileSync('/proc/stat', 'utf8').split('\n').filter((l) => /^cpu\d/.test(l)).length;
      const cores = before.map(([name, pid, t]) => {
        const now = pid == null ? null : processTicks(pid);
        return [name, t === null || now === null ? NaN : (now - t) / TICKS_PER_SECOND / seconds] as const;
      });
      return { cores, machine: (m1.busy - m0.busy) / Math.max(1, m1.total - m0.total), cpus, seconds };
    },
  };
}

export function formatCpu(u: CpuUse): string {
  const parts = u.cores.map(([name, c]) => `${name} ${Number.isNaN(c) ? '?' : c.toFixed(2)}`);
  return `${parts.join(', ')} cores; machine ${Math.round(u.machine * 100)}% of ${u.cpus} cores`;
}

export function coresOf(u: CpuUse, name: string): number {
  return u.cores.find(([n]) => n === name)?.[1] ?? NaN;
}

/**
 * CPU time per unit of work, per named process and in all: what a rate costs the machine, a figure that moves
 * less from run to run than the rate itself.
 */
export function formatCpuPer(u: CpuUse, units: number, unit: string): string {
  const ms = u.cores.map(([name, c]) => [name, (c * u.seconds * 1000) / units] as const);
  const all = ms.reduce((sum, [, m]) => sum + (Number.isNaN(m) ? 0 : m), 0);
  const parts = ms.map(([name, m]) => `${name} ${Number.isNaN(m) ? '?' : m.toFixed(2)}`);
  return `per ${unit}: ${parts.join(', ')}; all ${all.toFixed(2)} ms of CPU`;
}
