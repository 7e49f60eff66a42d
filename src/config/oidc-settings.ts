/** Parsers and the cross-setting rule of single sign-on (OpenID Connect). */
import { isLoopbackHost } from './loopback.js';
import * as p from './parsers.js';

/**
 * The provider's issuer: https, or http only on this machine (a provider run beside the service
 * for a trial or a test), no query or fragment. Discovery reads <issuer>/.well-known/openid-configuration.
 */
export function oidcIssuer(raw: unknown): string {
  const value = p.httpUrl(raw);
  const url = new URL(value);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw new p.InvalidValue(`must be an issuer without user, query or fragment (got ${JSON.stringify(value)})`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    throw new p.InvalidValue(
      `must be an https:// address (http:// only on this machine, such as http://127.0.0.1:9000) (got ${JSON.stringify(value)})`,
    );
  return value;
}

/** Email domains, lower case, comma-separated (an array in TOML): example.org, not @example.org nor *.example.org. */
export function emailDomainList(raw: unknown): string[] {
  const domains = p.list(raw).map((domain) => domain.toLowerCase());
  for (const domain of domains) {
    if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/.test(domain))
      throw new p.InvalidValue(`must list email domains such as school.example (got ${JSON.stringify(domain)})`);
  }
  return domains;
}

/** An issuer needs the client's id and secret; they mean nothing without it. */
export function oidcProblems(issuer: string | null, clientId: string | null, clientSecret: string | null): string[] {
  if (issuer === null) return [];
  const missing = [
    ...(clientId === null || clientId === '' ? ['SERVICE_OIDC_CLIENT_ID'] : []),
    ...(clientSecret === null ? ['SERVICE_OIDC_CLIENT_SECRET'] : []),
  ];
  return missing.length === 0
    ? []
    : [
        `SERVICE_OIDC_ISSUER is set: single sign-on also needs ${missing.join(' and ')} (from the provider's client registration)`,
      ];
}
