/** Time comes from outside the domain, so the state machines run under a fake clock in tests. */
export interface Clock {
  now(): Date;
  /** The same time in milliseconds with no Date made (the hot paths: every poll); a clock may leave it out. */
  nowMs?(): number;
}

/**
 * Timers, injected like the clock, so the grace periods and deadlines run under a fake clock in
 * tests. The daemon passes real timers that do not hold the process open.
 */
export interface Scheduler {
  /** Runs `fn` once, `ms` from now; the handle cancels it. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
