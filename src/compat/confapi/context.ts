import type { Clock } from '../../engine/clock.js';
import type { MeetingService } from '../../engine/meetings/meeting-service.js';
import type { TokenService } from '../../engine/tokens/token-service.js';
import type { MeetingLiveView } from '../live-view.js';
import type { Tenant } from '../tenants/parse.js';
import type { MeetingAnswerCache } from './answer-cache.js';
import type { CompatMeetings } from './meetings.js';
import type { AsyncCompatStore } from './async-store.js';
import type { GuestPolicy } from './model.js';
import type { Params } from './params.js';

/** Everything the call handlers use; built once by the module. */
export interface ConfapiDeps {
  readonly meetings: CompatMeetings;
  readonly store: AsyncCompatStore;
  /** getMeetingInfo answers kept per meeting version (answer-cache.ts). */
  readonly infoAnswers: MeetingAnswerCache;
  readonly tokens: Pick<TokenService, 'signJoin'>;
  readonly live: () => MeetingLiveView;
  /** The engine's records of a meeting (attendance), for learningDashboard. */
  readonly engineMeetings: Pick<MeetingService, 'attendance'>;
  readonly clock: Clock;
  /** COMPAT_FRONTEND_URL, without a trailing slash. */
  readonly frontendUrl: string;
  readonly defaultRecord: boolean;
  readonly defaultGuestPolicy: GuestPolicy;
  /** COMPAT_AUTHENTICATED_GUEST: a tenant's `authenticated_guest` overrides it. */
  readonly authenticatedGuest: boolean;
  /** Lifetime of the join tokens join hands out. */
  readonly joinTokenTtlSecs: number;
  /** On a node of a cluster: the calls only a meeting's owner can run go there (node-link.ts). */
  readonly owners?: OwnerRoute;
}

/** A verified call as it crosses to another node: the tenant by id, the signed parameters. */
export interface ForwardedCall {
  readonly call: string;
  readonly tenantId: string;
  readonly params: readonly (readonly [string, string])[];
  readonly xmlBody: string | null;
}

export interface OwnerRoute {
  /** The owner's answer when another node serves the call's meeting; null: this node runs it. */
  answerOf(call: ForwardedCall): Promise<Answer | null>;
}

/** One verified call: the tenant whose secret matched and the call's parameters. */
export interface CallContext {
  readonly call: string;
  readonly tenant: Tenant;
  readonly params: Params;
  /** An XML body sent with a POST (create's pre-uploaded presentations). */
  readonly xmlBody: string | null;
  readonly deps: ConfapiDeps;
  /** Records the state change this call made for its request's log line (ids only, never a name or a password). */
  readonly note?: (event: string, fields: Readonly<Record<string, string | number | boolean | null>>) => void;
}

export type Answer =
  | { readonly kind: 'xml'; readonly body: string }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'json'; readonly body: unknown }
  /** A short page for a person's browser (a join that cannot go on), never built from input. */
  | { readonly kind: 'page'; readonly status: number; readonly title: string; readonly text: string };

export type Handler = (ctx: CallContext) => Answer | Promise<Answer>;

export const xml = (body: string): Answer => ({ kind: 'xml', body });
