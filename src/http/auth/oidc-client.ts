import { createHash, timingSafeEqual } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Clock } from '../../engine/clock.js';
import type { ProviderIdentity, ProviderPolicy } from '../../engine/accounts/provider-sign-in.js';
import { HttpError } from '../errors.js';

/** Single sign-on as configured (SERVICE_OIDC_*); absent: no single sign-on. */
export interface OidcSettings extends ProviderPolicy {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/** A sign-in begun at /auth/oidc/start and not yet back: kept here, never sent anywhere but its state. */
export interface Pending {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  /** SHA-256 of the browser's binding cookie: the callback must come back in the browser that began it. */
  readonly binding: Buffer;
  readonly redirectUri: string;
  readonly language: string | null;
  readonly expiresAt: number;
}

/** A person has this long at her provider (typing a password, a second factor) before her sign-in is forgotten. */
export const pendingTtlMs = 10 * 60_000;
/** Sign-ins begun and not back, at most: past it the oldest are forgotten (a flood of starts costs memory, no more). */
const maxPending = 10_000;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

const unavailable = () =>
  new HttpError('sso_unavailable', 'the single sign-on provider cannot be reached now; try again in a moment');
const invalidResponse = () =>
  new HttpError('sso_response_invalid', 'the single sign-on provider did not sign you in (its answer was refused)');
const stateInvalid = () =>
  new HttpError('sso_state_invalid', 'this sign-in was not begun here, was used already or took too long; start again');

/** A network failure, a time-out or the provider's own 5xx: its trouble, not a forged answer. */
function providerDown(err: unknown): boolean {
  if (err instanceof TypeError) return true;
  if (err instanceof oidc.ResponseBodyError) return err.status >= 500;
  return err instanceof oidc.ClientError && (err.code === 'OAUTH_TIMEOUT' || err.code === 'OAUTH_ABORT');
}

/**
 * The service as an OpenID Connect client (openid-client): discovery fetched once and kept, the
 * authorization code flow with PKCE, `state` and `nonce` kept here per sign-in (single use), and
 * the ID token checked by openid-client (signature, issuer, audience, nonce, expiry). It hands
 * the verified identity to the engine, which decides who may sign in.
 */
export class OidcClient {
  private discovered: Promise<oidc.Configuration> | null = null;
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly settings: OidcSettings,
    private readonly clock: Clock,
  ) {}

  /** Where the provider is sent to, for the browser holding `binding` (its cookie). */
  async begin(redirectUri: string, binding: string, language: string | null): Promise<URL> {
    const configuration = await this.configuration();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const verifier = oidc.randomPKCECodeVerifier();
    const now = this.clock.now().getTime();
    this.forget(now);
    this.pending.set(state, {
      state,
      nonce,
      verifier,
      binding: digest(binding),
      redirectUri,
      language,
      expiresAt: now + pendingTtlMs,
    });
    return oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
  }

  /**
   * The sign-in whose `state` came back, taken (a second use of it is refused), when the same
   * browser (its binding cookie) began it and in time; else `sso_state_invalid`.
   */
  take(state: unknown, binding: string | undefined): Pending {
    const found = typeof state === 'string' ? this.pending.get(state) : undefined;
    if (found) this.pending.delete(found.state);
    const sameBrowser = binding !== undefined && found !== undefined && timingSafeEqual(digest(binding), found.binding);
    if (!found || !sameBrowser || found.expiresAt <= this.clock.now().getTime()) throw stateInvalid();
    return found;
  }

  /** The provider's answer (the callback's query) exchanged for a verified identity. */
  async finish(flow: Pending, query: URLSearchParams): Promise<ProviderIdentity> {
    const configuration = await this.configuration();
    const currentUrl = new URL(flow.redirectUri);
    currentUrl.search = query.toString();
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      // Providers that keep the email out of the ID token give it at userinfo, for the same subject only.
      const info =
        claims.email === undefined ? await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub) : claims;
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email: info.email,
        emailVerified: info.email_verified,
        name: info.name,
      };
    } catch (err) {
      throw Object.assign(providerDown(err) ? unavailable() : invalidResponse(), { cause: err });
    }
  }

  /** Discovery, once; a failed one is tried again at the next sign-in. */
  private configuration(): Promise<oidc.Configuration> {
    this.discovered ??= (async () => {
      const issuer = new URL(this.settings.issuer);
      const configuration = await oidc.discovery(
        issuer,
        this.settings.clientId,
        this.settings.clientSecret,
        undefined,
        { timeout: 10, ...(issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}) },
      );
      // The ID token's signature too, not only the TLS of the token endpoint.
      oidc.enableNonRepudiationChecks(configuration);
      return configuration;
    })().catch((err: unknown) => {
      this.discovered = null;
      throw Object.assign(unavailable(), { cause: err });
    });
    return this.discovered;
  }

  private forget(now: number): void {
    for (const [state, flow] of this.pending) {
      if (flow.expiresAt <= now || this.pending.size >= maxPending) this.pending.delete(state);
      else break;
    }
  }
}
