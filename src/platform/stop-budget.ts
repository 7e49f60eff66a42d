/**
 * The stop's time budget, shared by the daemon and the runtime files that supervise it, so
 * systemd's TimeoutStopSec and compose's stop_grace_period always cover what the daemon does:
 * SERVICE_SHUTDOWN_GRACE_SECS for the stop; at its end the process cuts what is still open and
 * exits 1 (run.ts, stopOnSignals).
 */

/** What a supervisor waits beyond the grace: the forced exit's last log lines and the process's own end, with room to spare. */
export const stopMarginSecs = 5;

/** systemd TimeoutStopSec / compose stop_grace_period for a daemon with this grace. */
export function stopTimeoutSecs(graceSecs: number): number {
  return graceSecs + stopMarginSecs;
}
