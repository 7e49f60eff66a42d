import { randomBytes } from 'node:crypto';
import type { Tenant, TenantSnapshot } from '../tenants/parse.js';
import type { TenantRegistry } from '../tenants/registry.js';
import type { SignedCall } from './checksum.js';
import { ClientHints } from './client-hints.js';
import { failure } from './errors.js';

/** What a call says about its tenant besides its checksum. */
export interface TenantClues {
  /** The `{tenant}` of `/confapi/{tenant}/api/…` (decoded), when the call came that way. */
  readonly pathTenant: string | undefined;
  /** The host the client asked for (Host, or X-Forwarded-Host from a trusted proxy), port included. */
  readonly host: string;
  /** The client's address as the trusted proxy reports it (the key of the hint). */
  readonly client: string;
  /** The call's meetingID, when it names one: its owners are tried early by the fallback. */
  readonly meetingId: string | undefined;
}

/**
 * The tenant label of `host` under `suffix` (COMPAT_TENANT_HOST_SUFFIX, e.g. `.example.org`):
 * `moodle.example.org:443` → `moodle`. Undefined when the host names no tenant: no suffix
 * set, another domain, an IP address, or the bare suffix. A trailing dot is ignored. Host names are case-insensitive,
 * so the label is lower-cased.
 */
export function hostTenantLabel(host: string, suffix: string): string | undefined {
  if (suffix === '' || host.startsWith('[')) return undefined;
  const colon = host.indexOf(':');
  // A fully qualified name may end with a dot (t1.example.org.): the same host.
  const name = (colon < 0 ? host : host.slice(0, colon)).toLowerCase().replace(/\.$/, '');
  if (name.length <= suffix.length || !name.endsWith(suffix)) return undefined;
  return name.slice(0, -suffix.length);
}

/**
 * Finds the tenant whose secret signed a call, in the order real deployments name it:
 *
 * 1. A call that names its tenant, by path (`/confapi/{tenant}/api/…`) or by host
 *    (`{tenant}` + COMPAT_TENANT_HOST_SUFFIX), is that tenant's alone: its secret is the only
 *    one tried (one hash, whatever the number of tenants). An unknown tenant, a tenant without
 *    an API secret, path and host naming two different tenants, or a checksum another tenant's
 *    secret would match are all checksumError, with the same message and about the same time
 *    (an unknown tenant is checked against a decoy secret), so the answer never tells which
 *    tenants exist.
 * 2. Otherwise the secrets are searched: the owners of the call's meetingID, the tenant this
 *    client address last signed with (a hint, verified like any other), then every tenant,
 *    the signed text hashed once for all of them when it is long (SignedCall).
 */
export class TenantChooser {
  private readonly decoySecret = randomBytes(32).toString('base64url');
  private hostIndex: { readonly of: TenantSnapshot; readonly byLabel: ReadonlyMap<string, Tenant | null> } | null =
    null;

  constructor(
    private readonly registry: TenantRegistry,
    private readonly ownersOf: (meetingId: string) => readonly string[],
    /** COMPAT_TENANT_HOST_SUFFIX, lower-case, starting with a dot; '' when hosts name no tenant. */
    private readonly hostSuffix: string,
    readonly hints = new ClientHints(),
  ) {}

  choose(signed: SignedCall, clues: TenantClues): Tenant {
    const snapshot = this.registry.current();
    const hostLabel = hostTenantLabel(clues.host, this.hostSuffix);
    if (clues.pathTenant !== undefined || hostLabel !== undefined)
      return this.named(snapshot, signed, clues.pathTenant, hostLabel);
    return this.search(snapshot, signed, clues);
  }

  private named(
    snapshot: TenantSnapshot,
    signed: SignedCall,
    pathTenant: string | undefined,
    hostLabel: string | undefined,
  ): Tenant {
    const byPath = pathTenant === undefined ? undefined : snapshot.byId.get(pathTenant);
    const byHost = hostLabel === undefined ? undefined : this.byHostLabel(snapshot).get(hostLabel);
    // Both given: they must name the same tenant (a tenant unknown to either is no tenant).
    const tenant =
      pathTenant !== undefined && hostLabel !== undefined
        ? byPath !== undefined && byPath === byHost
          ? byPath
          : undefined
        : (byPath ?? byHost ?? undefined);
    if (!tenant?.apiSecret) {
      signed.matches(this.decoySecret);
      throw failure('checksumError');
    }
    if (!this.signedBy(signed, tenant)) throw failure('checksumError');
    return tenant;
  }

  /**
   * Whether one of the tenant's secrets signed the call: the current one, and during a
   * rotation's grace the previous one. Both are always tried, so the time does not say which.
   */
  private signedBy(signed: SignedCall, tenant: Tenant, nowMs?: number): boolean {
    let matched = false;
    for (const secret of this.registry.apiSecretsOf(tenant, nowMs)) if (signed.matches(secret)) matched = true;
    return matched;
  }

  /**
   * The owners of the meetingID, then the client's hint, then every tenant in the registry's
   * order until one matches: the clock is read once, and a tenant tried early is not tried again.
   */
  private search(snapshot: TenantSnapshot, signed: SignedCall, clues: TenantClues): Tenant {
    if (!signed.wellFormed) throw failure('checksumError');
    const nowMs = this.registry.nowMs();
    const early: Tenant[] = [];
    // Owners of the meetingID first: the call of a known meeting costs one or two hashes, not a scan.
    for (const id of clues.meetingId === undefined ? [] : this.ownersOf(clues.meetingId))
      early.push(...snapshotTenant(snapshot, id));
    // Then the hint, for the calls no owner narrows (create, getMeetings): one more hash at worst.
    early.push(...snapshotTenant(snapshot, this.hints.get(clues.client)));
    let found: Tenant | undefined;
    for (let i = 0; i < early.length && !found; i++) {
      const tenant = early[i]!;
      if (tenant.apiSecret && early.indexOf(tenant) === i && this.signedBy(signed, tenant, nowMs)) found = tenant;
    }
    const tenants = snapshot.apiTenants;
    for (let i = 0; i < tenants.length && !found; i++) {
      const tenant = tenants[i]!;
      if (tenant.apiSecret && !early.includes(tenant) && this.signedBy(signed, tenant, nowMs)) found = tenant;
    }
    if (!found) throw failure('checksumError');
    this.hints.remember(clues.client, found.id);
    return found;
  }

  /** Tenants by lower-cased id, built once per registry snapshot; ids equal but for case name nobody (null). */
  private byHostLabel(snapshot: TenantSnapshot): ReadonlyMap<string, Tenant | null> {
    if (this.hostIndex?.of !== snapshot) {
      const byLabel = new Map<string, Tenant | null>();
      for (const tenant of snapshot.tenants) {
        const label = tenant.id.toLowerCase();
        byLabel.set(label, byLabel.has(label) ? null : tenant);
      }
      this.hostIndex = { of: snapshot, byLabel };
    }
    return this.hostIndex.byLabel;
  }
}

/** The tenant `id` names in the snapshot, as a list of none or one. */
function snapshotTenant(snapshot: TenantSnapshot, id: string | undefined): Tenant[] {
  const tenant = id === undefined ? undefined : snapshot.byId.get(id);
  return tenant ? [tenant] : [];
}
