import { ConfigError } from '../../config/config-error.js';
import type { Config } from '../../config/settings.js';
import { primaryTenantId, type Tenant } from '../tenants/parse.js';
import type { TenantRegistry } from '../tenants/registry.js';
import type { GatewayPair } from './gateway-token.js';

export type GatewayConfig = Pick<
  Config,
  'jitsiAppId' | 'jitsiAppSecret' | 'jitsiAcceptedIssuers' | 'jitsiAcceptedAudiences' | 'jitsiAllowAnonymous'
>;

/** The embed gateway runs when the primary pair has a secret or open rooms are allowed. */
export function gatewayActive(config: GatewayConfig): boolean {
  return config.jitsiAppSecret !== null || config.jitsiAllowAnonymous;
}

/** The primary pair's app id, which no tenant of the registry may take; null without a primary pair. */
export function primaryAppIdOf(config: GatewayConfig): string | null {
  return config.jitsiAppSecret !== null && config.jitsiAppId !== '' ? config.jitsiAppId : null;
}

/**
 * A secret with no issuer to accept would refuse every token: say so at start instead.
 * (The secret's length is checked by the settings table, naming the variable.)
 */
export function checkGatewayConfig(config: GatewayConfig): void {
  if (config.jitsiAppSecret !== null && config.jitsiAppId === '' && config.jitsiAcceptedIssuers.length === 0) {
    throw new ConfigError(
      'COMPAT_JITSI_APP_ID must be set with COMPAT_JITSI_APP_SECRET: it is the iss of the tokens (or list them in COMPAT_JITSI_ACCEPTED_ISSUERS)',
    );
  }
}

/** Who a path prefix (`/{prefix}/videoconf/{room}`) names: a tenant, or nobody (a namespace). */
export type PrefixOwner = { readonly tenantId: string; readonly embedOrigins: readonly string[] } | null;

/**
 * The gateway's keys: the primary pair from COMPAT_JITSI_* and each registry tenant's pair.
 * A token's `iss` finds its pair with one map lookup in the current registry snapshot (an
 * app id of a tenant), else the primary pair; the pair then says which issuers it accepts
 * (a tenant: its app id only; the primary pair: COMPAT_JITSI_ACCEPTED_ISSUERS).
 */
export class GatewayKeys {
  private readonly primary: GatewayPair | null;
  // Built once per tenant record: a reload makes new records, and the old ones are dropped with their snapshot.
  private readonly pairs = new WeakMap<Tenant, GatewayPair>();

  constructor(
    private readonly config: GatewayConfig,
    private readonly registry: TenantRegistry | null,
  ) {
    this.primary =
      config.jitsiAppSecret === null
        ? null
        : {
            tenantId: primaryTenantId,
            secret: Buffer.from(config.jitsiAppSecret, 'utf8'),
            acceptedIssuers: config.jitsiAcceptedIssuers,
            embedOrigins: ['*'],
          };
  }

  get acceptedAudiences(): readonly string[] {
    return this.config.jitsiAcceptedAudiences;
  }

  pairFor(iss: string): GatewayPair | null {
    const tenant = this.registry?.current().byAppId.get(iss);
    return tenant ? this.pairOf(tenant) : this.primary;
  }

  /** The tenant a path prefix names (its id or its app id, or the primary app id), else null. */
  prefixOwner(prefix: string): PrefixOwner {
    if (this.primary && prefix === this.config.jitsiAppId)
      return { tenantId: primaryTenantId, embedOrigins: this.primary.embedOrigins };
    const snapshot = this.registry?.current();
    const tenant = snapshot?.byAppId.get(prefix) ?? snapshot?.byId.get(prefix);
    if (!tenant || tenant.appId === null || tenant.appSecret === null) return null;
    return { tenantId: tenant.id, embedOrigins: this.pairOf(tenant).embedOrigins };
  }

  private pairOf(tenant: Tenant): GatewayPair {
    let pair = this.pairs.get(tenant);
    if (!pair) {
      pair = {
        tenantId: tenant.id,
        secret: Buffer.from(tenant.appSecret ?? '', 'utf8'),
        ...(tenant.previousAppSecret
          ? {
              previous: {
                secret: Buffer.from(tenant.previousAppSecret.secret, 'utf8'),
                until: tenant.previousAppSecret.until,
              },
            }
          : {}),
        acceptedIssuers: [tenant.appId ?? ''],
        embedOrigins: tenant.embedOrigins ?? ['*'],
      };
      this.pairs.set(tenant, pair);
    }
    return pair;
  }
}
