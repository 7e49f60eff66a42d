/**
 * The stop's time budget, shared by the daemon and the runtime files that supervise it, so
 * systemd's TimeoutStopSec and compose's stop_grace_period always cover what the daemon does:
 * SERVICE_SHUTDOWN_GRACE_SECS for requests in flight, then the connections still open are cut;
 * if the stop still has not finished `shutdownBackstopSecs` later, the process exits anyway.
 */
export const shutdownBackstopSecs = 2;

/** What a supervisor waits beyond the grace: the backstop, plus closing the database and the log. */
export const stopMarginSecs = 5;

/** systemd TimeoutStopSec / compose stop_grace_period for a daemon with this grace. */
export function stopTimeoutSecs(graceSecs: number): number {
  return graceSecs + stopMarginSecs;
}
