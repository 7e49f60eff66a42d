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
  apiSecretsOf(tenant: Tenant): readonly string[] {
    if (tenant.apiSecret === null) return [];
    return inGrace(tenant.previousApiSecret, this.clock.now().getTime())
      ? [tenant.apiSecret, tenant.previousApiSecret.secret]
      : [tenant.apiSecret];
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
