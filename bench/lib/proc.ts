import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Memory of a process from /proc/<pid>/status, in KiB; null once it is gone. */
export function memoryOf(pid: number): { rssKb: number; hwmKb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
  } catch {
    return null;
  }
}

let ticksPerSecond: number | null = null;

function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/**
 * User and system CPU seconds a process (all its threads) has used; null once it is gone.
 * `mainThreadOnly` reads its main thread alone: JavaScript and the event loop's system calls,
 * without V8's garbage-collection helpers and libuv's pool.
 */
export function cpuTimesOf(pid: number, mainThreadOnly = false): { user: number; system: number } | null {
  try {
    const stat = readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / clockTicks(), system: Number(fields[12]) / clockTicks() };
  } catch {
    return null;
  }
}

export function cpuSecondsOf(pid: number): number | null {
  const times = cpuTimesOf(pid);
  return times ? times.user + times.system : null;
}

/**
 * The CPU other programs (not this process, not `pids`) take over `ms`, in % of one core.
 * The bench waits for a quiet moment with it: a shared machine makes every figure noisy.
 */
export async function othersCpuPct(pids: readonly number[], ms = 1000): Promise<number | null> {
  const ours = () =>
    pids.reduce((sum, pid) => sum + (cpuSecondsOf(pid) ?? 0), 0) +
    (process.cpuUsage().user + process.cpuUsage().system) / 1e6;
  const busy0 = machineBusySeconds();
  const ours0 = ours();
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const busy1 = machineBusySeconds();
  const ours1 = ours();
  const wall = (performance.now() - t0) / 1000;
  if (busy0 === null || busy1 === null) return null;
  return Math.max(0, ((busy1 - busy0 - (ours1 - ours0)) / wall) * 100);
}

/** CPU seconds all processors have spent busy since boot (/proc/stat), for the CPU others took. */
export function machineBusySeconds(): number | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return (user + nice + system + irq + softirq + steal) / clockTicks();
  } catch {
    return null;
  }
}

/** Samples a process's VmRSS every `everyMs`; `window()` starts a window, `peakMb()` reads its highest value. */
export class RssSampler {
  private timer: NodeJS.Timeout | null = null;
  private peakKb = 0;

  constructor(
    readonly pid: number,
    private readonly everyMs = 100,
  ) {}

  start(): this {
    this.timer ??= setInterval(() => this.sample(), this.everyMs);
    this.timer.unref();
    return this;
  }

  window(): void {
    this.peakKb = 0;
    this.sample();
  }

  peakMb(): number | null {
    this.sample();
    return this.peakKb > 0 ? this.peakKb / 1024 : null;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private sample(): void {
    const memory = memoryOf(this.pid);
    if (memory && memory.rssKb > this.peakKb) this.peakKb = memory.rssKb;
  }
}
