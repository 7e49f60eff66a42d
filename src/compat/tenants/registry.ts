import { inGrace, type Tenant, type TenantSnapshot } from './parse.js';

// The daemon's live registry: the snapshot parse.ts made, replaced whole by watch.ts on a reload.

/** The registry's time, injected (the engine's Clock fits) so a grace's end is tested under a fake clock. */
export interface RegistryClock {
  now(): Date;
}

/** Holds the current snapshot; readers take `current()` once per request. */
export class TenantRegistry {
  private snapshot: TenantSnapshot;
  private reloads = 0;

  constructor(
    initial: TenantSnapshot,
    private readonly clock: RegistryClock,
  ) {
    this.snapshot = initial;
  }

  /** The meeting-API secrets that sign for `tenant` now: its current one, and the previous one during its grace. */
  apiSecretsOf(tenant: Tenant, nowMs: number = this.nowMs()): readonly string[] {
    if (tenant.apiSecret === null) return [];
    return inGrace(tenant.previousApiSecret, nowMs)
      ? [tenant.apiSecret, tenant.previousApiSecret.secret]
      : [tenant.apiSecret];
  }

  /** The registry's clock in milliseconds: read once by a search, which then asks apiSecretsOf for each tenant. */
  nowMs(): number {
    return this.clock.now().getTime();
  }

  current(): TenantSnapshot {
    return this.snapshot;
  }

  replace(next: TenantSnapshot): void {
    this.snapshot = next;
    this.reloads += 1;
  }

  /** How many times a new registry was taken since start. */
  reloadCount(): number {
    return this.reloads;
  }
}
