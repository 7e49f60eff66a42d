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

/** User + system CPU seconds a process (all its threads) has used; null once it is gone. */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
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
