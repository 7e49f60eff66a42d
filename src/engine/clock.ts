/** Time comes from outside the domain, so the state machines run under a fake clock in tests. */
export interface Clock {
  now(): Date;
}
