import { clusterSettings, type NatsLocation } from './cluster-settings.js';
import { databaseUrl, type DatabaseLocation } from './database-url.js';
import { iceServerList, turnSecret } from './ice-servers.js';
import { janusSettings, type JanusConfig } from './janus-settings.js';
import { emailDomainList, oidcIssuer } from './oidc-settings.js';
import * as p from './parsers.js';
import {
  appSecret,
  callbackAllowList,
  ed25519PublicKey,
  hostSuffix,
  ipv4,
  janusSecret,
  portRange,
  proxyList,
  type PortRange,
} from './setting-parsers.js';

export type { PortRange } from './setting-parsers.js';

/**
 * The one table of configuration. Each row drives the environment variable, the key in
 * room-defaults.toml, the `meetctl serve` flag, the table of docs/configuration.md and validation.
 * Secrets have no flag: a command line is visible to every user of the machine.
 */
export interface Setting<T> {
  readonly env: string;
  readonly toml: readonly string[];
  readonly flag: string | null;
  readonly secret: boolean;
  readonly description: string;
  /** Raw default, fed through `parse` like any other source; null means unset. */
  readonly fallback: string | null | ((resolved: Partial<Config>) => unknown);
  readonly parse: (raw: unknown) => T;
  /** The Default cell of docs/configuration.md's table when the raw default does not say it (computed, or what unset means). */
  readonly shownDefault?: string;
  /** How `meetctl install <module>` fills this setting; absent: install leaves it alone. */
  readonly install?: InstallSpec;
}

/**
 * A setting that `meetctl install` writes. The command's flags, its question and what it
 * generates all come from these descriptors, so the table stays the one list of options.
 */
export interface InstallSpec {
  readonly module: 'compat';
  /** env: the environment file (secrets, and what the daemon must see); room-defaults: the module's section of room-defaults.toml (flag: the row's own). */
  readonly file: 'env' | 'room-defaults';
  /** Generated when neither the environment nor an earlier install gives it: this many random bytes, base64url. */
  readonly generateBytes?: number;
  /** A yes/no question asked on a terminal when neither the flag (and its --no- form) nor an earlier install answered it. */
  readonly confirm?: { readonly question: string; readonly flag: string };
  /** A value asked on a terminal (the row's own flag answers it) when neither the flag, the environment, an earlier install nor room-defaults.toml gives it. */
  readonly ask?: { readonly question: string };
  /** Written to the env file whenever the environment puts one in force, so the daemon sees what install verified with. */
  readonly recordInForce?: boolean;
}

export interface Config extends JanusConfig {
  readonly httpAddr: p.ListenAddress;
  readonly dataDir: string;
  readonly databaseUrl: DatabaseLocation;
  readonly databasePoolSize: number;
  readonly databaseStatementTimeoutMs: number;
  readonly natsUrl: NatsLocation | null;
  readonly nodeId: string;
  readonly logLevel: string;
  readonly accessLog: 'errors' | 'all';
  readonly slowRequestMs: number;
  readonly requestSummarySecs: number;
  readonly metricsAddr: p.ListenAddress | null;
  readonly metricsAllowRemote: boolean;
  readonly waitingRoom: 'optional' | 'forced' | 'off';
  readonly waitingRoomMode: 'approval' | 'until_moderator' | null;
  readonly micsOffOnEntry: 'waiting_room' | 'on' | 'off';
  readonly moderatorLinkTtlSecs: number;
  readonly meetingEmptyGraceSecs: number;
  readonly waitingClosedWindowSecs: number;
  readonly shutdownGraceSecs: number;
  readonly iceServers: readonly string[];
  readonly turnSecret: string | null;
  readonly turnCredentialTtlSecs: number;
  readonly embedAncestors: readonly string[];
  readonly trustedProxies: readonly string[];
  readonly tenantsFile: string | null;
  readonly configDir: string;
  readonly licensePublicKey: string | null;
  readonly publicUrl: string | null;
  readonly oidcIssuer: string | null;
  readonly oidcClientId: string | null;
  readonly oidcClientSecret: string | null;
  readonly oidcAllowedDomains: readonly string[];
  readonly oidcCreateAccounts: boolean;
  readonly compatHttpAddr: p.ListenAddress;
  readonly compatFrontendUrl: string;
  readonly compatApiSharedSecret: string | null;
  readonly compatApiDataDir: string;
  readonly jitsiAppId: string;
  readonly jitsiAppSecret: string | null;
  readonly jitsiAcceptedIssuers: readonly string[];
  readonly jitsiAcceptedAudiences: readonly string[];
  readonly jitsiAllowAnonymous: boolean;
  readonly jitsiWaitingRoom: 'off' | 'guests' | 'all';
  readonly jitsiMaxTokenLifetime: number;
  readonly compatAuthenticatedGuest: boolean;
  readonly jitsiOpenRoomsPerClient: number;
  readonly jitsiOpenRoomIdleSecs: number;
  readonly compatEnabled: 'auto' | 'true' | 'false';
  readonly compatDefaultRecord: boolean;
  readonly compatDefaultGuestPolicy: 'ALWAYS_ACCEPT' | 'ASK_MODERATOR' | 'ALWAYS_DENY' | 'ALWAYS_ACCEPT_AUTH';
  readonly compatCallbackAllow: readonly string[];
  readonly compatTenantHostSuffix: string;
  readonly media: 'mesh' | 'janus' | 'auto';
  readonly janusBin: string;
  readonly janusUrl: string | null;
  readonly janusApiSecret: string | null;
  readonly janusRoomAdminKey: string | null;
  readonly rtpPorts: PortRange;
  readonly publicIp: string | null;
  readonly janusPublishers: number;
  readonly mediaPrivatePeers: boolean;
}

function setting<T>(row: Omit<Setting<T>, 'secret' | 'flag'> & { secret?: boolean; flag?: string | null }): Setting<T> {
  return { secret: false, flag: null, ...row };
}

/** Where joins point when neither SERVICE_PUBLIC_URL nor COMPAT_FRONTEND_URL says: the engine listener's default on this machine. */
export const localFrontendUrl = 'http://localhost:3000';

// A table laid out by hand (where, default and parser of a row on one line each): prettier would put every key on its own line.
// prettier-ignore
export const settings = {
  httpAddr: setting({
    env: 'SERVICE_HTTP_ADDR', toml: ['service', 'http_addr'], flag: '--http-addr',
    fallback: '0.0.0.0:3000', parse: p.listenAddress,
    description: 'Engine listener (web client, rooms API, room addresses)',
  }),
  dataDir: setting({
    env: 'SERVICE_DATA_DIR', toml: ['service', 'data_dir'], flag: '--data-dir',
    fallback: './data', parse: p.path,
    description: 'Data directory: SQLite database, signing key, first admin token',
  }),
  databaseUrl: setting({
    env: 'SERVICE_DATABASE_URL', toml: ['service', 'database_url'], flag: '--database-url',
    fallback: 'sqlite:', parse: databaseUrl, shownDefault: 'sqlite: (SQLite files in the data directory)',
    description: 'Where the durable state lives: sqlite: (the default) is SQLite files in the data directory; postgres://user@host:port/database (or postgresql://, with ?sslmode=, ?passfile=, ?host=/socket/dir) is a PostgreSQL database, the store several nodes can share. No password in the URL (refused): it comes from PGPASSWORD or a passfile (?passfile=, PGPASSFILE, ~/.pgpass)',
  }),
  databasePoolSize: setting({
    env: 'SERVICE_DATABASE_POOL_SIZE', toml: ['service', 'database_pool_size'], flag: '--database-pool-size',
    fallback: '10', parse: p.integerBetween(1, 100),
    description: 'PostgreSQL only: connections the service keeps open to the database at most (1 to 100)',
  }),
  databaseStatementTimeoutMs: setting({
    env: 'SERVICE_DATABASE_STATEMENT_TIMEOUT_MS', toml: ['service', 'database_statement_timeout_ms'], flag: '--database-statement-timeout-ms',
    fallback: '5000', parse: p.integerBetween(100, 600_000),
    description: 'PostgreSQL only: a statement running longer than this many milliseconds is cancelled (its request fails rather than hanging); migrations are exempt',
  }),
  ...clusterSettings,
  logLevel: setting({
    env: 'SERVICE_LOG_LEVEL', toml: ['service', 'log_level'], flag: '--log-level',
    fallback: 'info', parse: p.oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    description: 'Log level of the JSON log on standard output: fatal, error, warn, info, debug, trace or silent',
  }),
  accessLog: setting({
    env: 'SERVICE_ACCESS_LOG', toml: ['service', 'access_log'], flag: '--access-log',
    fallback: 'errors', parse: p.oneOf('errors', 'all'),
    description: 'errors: a line only for failed (except the expected refusals), slow and state-changing requests, plus the request summary; all: also one line for every request',
  }),
  slowRequestMs: setting({
    env: 'SERVICE_SLOW_REQUEST_MS', toml: ['service', 'slow_request_ms'], flag: '--slow-request-ms',
    fallback: '1000', parse: p.integerBetween(0, 3_600_000),
    description: 'A request that takes this many milliseconds or more is logged as slow (warn), whatever SERVICE_ACCESS_LOG says',
  }),
  requestSummarySecs: setting({
    env: 'SERVICE_REQUEST_SUMMARY_SECS', toml: ['service', 'request_summary_secs'], flag: '--request-summary-secs',
    fallback: '60', parse: p.integerBetween(1, 86_400),
    description: 'How often the summary line (requests, 4xx, 5xx and latency percentiles per route family) is written; none when no request came',
  }),
  metricsAddr: setting({
    env: 'SERVICE_METRICS_ADDR', toml: ['service', 'metrics_addr'], flag: '--metrics-addr',
    fallback: null, parse: p.listenAddress, shownDefault: 'unset (no metrics)',
    description: 'Listener of the Prometheus metrics (GET /metrics only, no token), e.g. 127.0.0.1:9464. A loopback address unless SERVICE_METRICS_ALLOW_REMOTE=true: any other stops the start (exit 2)',
  }),
  metricsAllowRemote: setting({
    env: 'SERVICE_METRICS_ALLOW_REMOTE', toml: ['service', 'metrics_allow_remote'], flag: '--metrics-allow-remote',
    fallback: 'false', parse: p.boolean,
    description: 'true: SERVICE_METRICS_ADDR may be an address other machines reach (keep it behind a firewall: the metrics answer anyone who asks)',
  }),
  waitingRoom: setting({
    env: 'SERVICE_WAITING_ROOM', toml: ['service', 'waiting_room'], flag: '--waiting-room',
    fallback: 'optional', parse: p.oneOf('optional', 'forced', 'off'),
    description: 'optional: each room decides; forced: every room verifies arrivals; off: no waiting room on this instance',
  }),
  waitingRoomMode: setting({
    env: 'SERVICE_WAITING_ROOM_MODE', toml: ['service', 'waiting_room_mode'], flag: '--waiting-room-mode',
    fallback: null, parse: p.optionalOneOf('approval', 'until_moderator'),
    description: 'When set (approval or until_moderator), fixes the admission mode of every room',
  }),
  micsOffOnEntry: setting({
    env: 'SERVICE_MICS_OFF_ON_ENTRY', toml: ['service', 'mics_off_on_entry'], flag: '--mics-off-on-entry',
    fallback: 'waiting_room', parse: p.oneOf('waiting_room', 'on', 'off'),
    description: 'Microphones off on entry for rooms created without mics_off_on_entry: waiting_room (rooms with a waiting room), on or off',
  }),
  moderatorLinkTtlSecs: setting({
    env: 'SERVICE_MODERATOR_LINK_TTL_SECS', toml: ['service', 'moderator_link_ttl_secs'], flag: '--moderator-link-ttl-secs',
    // The bounds of the room field moderator_link_ttl_secs (engine/rooms/room-fields.ts; a test holds them equal): 1 h to 365 days.
    fallback: String(120 * 86_400), parse: p.integerBetween(3600, 365 * 86_400),
    description: "A moderator link's lifetime (seconds, 3600 to 31536000) for rooms created without moderator_link_ttl_secs: 120 days (a school term) by default. A link valid when the room's open meeting began stays good until that meeting ends",
  }),
  meetingEmptyGraceSecs: setting({
    env: 'SERVICE_MEETING_EMPTY_GRACE_SECS', toml: ['service', 'meeting_empty_grace_secs'], flag: '--meeting-empty-grace-secs',
    fallback: '300', parse: p.integerBetween(0, 86_400),
    description: 'A meeting ends after being empty (nobody present, nobody waiting) this long (seconds); its bars end with it',
  }),
  waitingClosedWindowSecs: setting({
    env: 'SERVICE_WAITING_CLOSED_WINDOW_SECS', toml: ['service', 'waiting_closed_window_secs'], flag: '--waiting-closed-window-secs',
    // The grace of a silent page (a network drop, a frozen phone tab, a loaded server's slow answers): a
    // minute by default; at least two of the page's 2 s polls, so one late poll never closes a request.
    fallback: '60', parse: p.integerBetween(4, 3600),
    description: "The grace of a waiting page that stopped polling (a network drop, a frozen phone tab): its request keeps its place for this many seconds (4 to 3600; the page polls every 2 s), moderators see it as 'connection lost' after 6 s, and the page re-attaches by itself; only then does it count as a closed window and lose its place. Closing the window sends a beacon that frees the place at once",
  }),
  shutdownGraceSecs: setting({
    env: 'SERVICE_SHUTDOWN_GRACE_SECS', toml: ['service', 'shutdown_grace_secs'], flag: '--shutdown-grace-secs',
    fallback: '10', parse: p.integerBetween(0, 3600),
    description: "On SIGTERM or SIGINT, the stop (live sockets closed with 4503, requests in flight answered, writes committed, database closed) gets this long (seconds); a stop unfinished then, or a second signal, cuts what is open and exits 1. The unit's TimeoutStopSec and compose's stop_grace_period are rendered from it (+5 s)",
  }),
  iceServers: setting({
    env: 'SERVICE_ICE_SERVERS', toml: ['service', 'ice_servers'], flag: '--ice-servers',
    fallback: '', parse: iceServerList,
    description: 'STUN and TURN servers handed to admitted pages for their media (comma-separated stun:, turn: or turns: addresses, such as stun:turn.example.org:3478,turn:turn.example.org:3478?transport=udp,turns:turn.example.org:5349; no user name, password or path); a TURN server needs SERVICE_TURN_SECRET',
  }),
  turnSecret: setting({
    env: 'SERVICE_TURN_SECRET', toml: ['service', 'turn_secret'], secret: true,
    fallback: null, parse: turnSecret,
    description: "Shared secret of the TURN server's REST credentials (coturn: use-auth-secret, static-auth-secret), at least 16 bytes; each admitted page gets its own user name <expiry>:<participant id> and password base64(HMAC-SHA1(secret, user name)), valid SERVICE_TURN_CREDENTIAL_TTL_SECS, renewed over its live connection while it stays. Never logged or printed",
  }),
  turnCredentialTtlSecs: setting({
    env: 'SERVICE_TURN_CREDENTIAL_TTL_SECS', toml: ['service', 'turn_credential_ttl_secs'], flag: '--turn-credential-ttl-secs',
    // Short: the TURN server cannot be told someone left, so a credential outlives her by up to this long.
    fallback: '3600', parse: p.integerBetween(300, 43_200),
    description: 'How long a TURN credential is valid (300 to 43200 seconds); a participant connected to the meeting gets fresh ones over her live connection when it opens and at three quarters of it, one who left or was removed gets none, so hers lapse within this time (the TURN server cannot be told she left)',
  }),
  embedAncestors: setting({
    env: 'SERVICE_EMBED_ANCESTORS', toml: ['service', 'embed_ancestors'], flag: '--embed-ancestors',
    fallback: '', parse: p.originList,
    description: 'Origins allowed to embed the web client (comma-separated)',
  }),
  trustedProxies: setting({
    env: 'SERVICE_TRUSTED_PROXIES', toml: ['service', 'trusted_proxies'], flag: '--trusted-proxies',
    fallback: '127.0.0.1,::1', parse: proxyList,
    description: 'Reverse proxies whose X-Forwarded-For names the client (IPs or CIDR blocks, comma-separated; none: trust nobody); per-client limits and the cookie\'s Secure follow it, on both listeners',
  }),
  tenantsFile: setting({
    env: 'SERVICE_TENANTS_FILE', toml: ['service', 'tenants_file'], flag: '--tenants-file',
    fallback: null, parse: p.path,
    description: 'Tenant registry of the compat module (TOML); unset: one tenant, the primary secret',
  }),
  configDir: setting({
    env: 'SERVICE_CONFIG_DIR', toml: ['service', 'config_dir'], flag: '--config-dir',
    fallback: '/etc/meet', parse: p.path,
    description: 'Configuration directory: meetctl writes the env file (meet.env), room-defaults.toml and the tenants file (tenants.toml) there',
  }),
  licensePublicKey: setting({
    env: 'SERVICE_LICENSE_PUBLIC_KEY', toml: ['service', 'license_public_key'],
    fallback: null, parse: ed25519PublicKey, shownDefault: 'the key built into the product',
    description: 'Ed25519 public key (PEM inline, @path, or the PEM\'s base64 body on one line) that verifies server keys, for a private licence authority. meetctl install records the one its environment names in the env file, on one line, so the daemon verifies with the same key',
    install: { module: 'compat', file: 'env', recordInForce: true },
  }),
  publicUrl: setting({
    env: 'SERVICE_PUBLIC_URL', toml: ['service', 'public_url'], flag: '--public-url',
    fallback: null, parse: p.publicUrl,
    description: 'The address people reach the service at, such as https://meet.example.org, no query (nginx\'s site): meeting-API joins and external_api.js point there, and meetctl nginx takes its host as the default --server-name. meetctl install compat writes it (asked on a terminal)',
    install: { module: 'compat', file: 'env', ask: { question: 'Public address of the service (such as https://meet.example.org)?' } },
  }),
  oidcIssuer: setting({
    env: 'SERVICE_OIDC_ISSUER', toml: ['service', 'oidc_issuer'], flag: '--oidc-issuer',
    fallback: null, parse: oidcIssuer, shownDefault: 'unset (no single sign-on)',
    description: 'Single sign-on: the OpenID Connect provider\'s issuer (https://, such as https://login.school.example/realms/staff; http:// only on this machine). Setting it shows "Sign in with single sign-on" on /signin; the provider\'s client is registered with the redirect URI <SERVICE_PUBLIC_URL>/auth/oidc/callback. Needs SERVICE_OIDC_CLIENT_ID and SERVICE_OIDC_CLIENT_SECRET',
  }),
  oidcClientId: setting({
    env: 'SERVICE_OIDC_CLIENT_ID', toml: ['service', 'oidc_client_id'], flag: '--oidc-client-id',
    fallback: null, parse: p.plainString,
    description: 'Single sign-on: the client id the provider gave this service',
  }),
  oidcClientSecret: setting({
    env: 'SERVICE_OIDC_CLIENT_SECRET', toml: ['service', 'oidc_client_secret'], secret: true,
    fallback: null, parse: p.secret,
    description: 'Single sign-on: the client secret the provider gave this service. Never logged or printed',
  }),
  oidcAllowedDomains: setting({
    env: 'SERVICE_OIDC_ALLOWED_DOMAINS', toml: ['service', 'oidc_allowed_domains'], flag: '--oidc-allowed-domains',
    fallback: '', parse: emailDomainList, shownDefault: 'unset (any domain)',
    description: 'Single sign-on: only people whose verified email is at one of these domains (comma-separated, exact: school.example does not admit staff.school.example) may sign in; unset: any domain the provider vouches for',
  }),
  oidcCreateAccounts: setting({
    env: 'SERVICE_OIDC_CREATE_ACCOUNTS', toml: ['service', 'oidc_create_accounts'], flag: '--oidc-create-accounts',
    fallback: 'true', parse: p.boolean,
    description: 'Single sign-on: true makes an organiser account on a person\'s first sign-in; false lets in only accounts made beforehand (meetctl user add, by email)',
  }),
  compatHttpAddr: setting({
    env: 'COMPAT_HTTP_ADDR', toml: ['modules', 'compat', 'http_addr'], flag: '--compat-http-addr',
    fallback: '0.0.0.0:8088', parse: p.listenAddress,
    description: 'Compat module listener (both surfaces: meeting API and embed gateway)',
  }),
  compatFrontendUrl: setting({
    env: 'COMPAT_FRONTEND_URL', toml: ['modules', 'compat', 'frontend_url'], flag: '--compat-frontend-url',
    fallback: (c) => c.publicUrl ?? localFrontendUrl, parse: p.httpUrl, shownDefault: `SERVICE_PUBLIC_URL, else ${localFrontendUrl}`,
    description: 'Base of join redirects and of the pages external_api.js opens (default: SERVICE_PUBLIC_URL, else http://localhost:3000); meetctl doctor fails when it is a loopback or localhost address while the nginx site serves a public name',
  }),
  compatApiSharedSecret: setting({
    env: 'COMPAT_API_SHARED_SECRET', toml: ['modules', 'compat', 'api_shared_secret'], secret: true,
    fallback: null, parse: p.secret,
    description: 'Checksum secret of the primary tenant; setting it turns the meeting API on. Set but empty or white space is an error',
    install: { module: 'compat', file: 'env', generateBytes: 32 },
  }),
  compatApiDataDir: setting({
    env: 'COMPAT_API_DATA_DIR', toml: ['modules', 'compat', 'api_data_dir'], flag: '--compat-api-data-dir',
    fallback: (c) => `${c.dataDir}/compat-api`, parse: p.path, shownDefault: '<data dir>/compat-api',
    description: 'State directory of the meeting API (default: <data dir>/compat-api)',
  }),
  jitsiAppId: setting({
    env: 'COMPAT_JITSI_APP_ID', toml: ['modules', 'compat', 'jitsi_app_id'], flag: '--compat-jitsi-app-id',
    fallback: '', parse: p.plainString,
    description: 'Application id of the embed gateway (the tokens\' iss)',
    install: { module: 'compat', file: 'env', generateBytes: 32 },
  }),
  jitsiAppSecret: setting({
    env: 'COMPAT_JITSI_APP_SECRET', toml: ['modules', 'compat', 'jitsi_app_secret'], secret: true,
    fallback: null, parse: appSecret,
    description: 'HS256 secret of the embed gateway; setting it turns the gateway on',
    install: { module: 'compat', file: 'env', generateBytes: 32 },
  }),
  jitsiAcceptedIssuers: setting({
    env: 'COMPAT_JITSI_ACCEPTED_ISSUERS', toml: ['modules', 'compat', 'jitsi_accepted_issuers'], flag: '--compat-jitsi-accepted-issuers',
    fallback: (c) => c.jitsiAppId ?? '', parse: p.list, shownDefault: 'the app id',
    description: 'Accepted token issuers, comma-separated, * for any (default: the app id)',
  }),
  jitsiAcceptedAudiences: setting({
    env: 'COMPAT_JITSI_ACCEPTED_AUDIENCES', toml: ['modules', 'compat', 'jitsi_accepted_audiences'], flag: '--compat-jitsi-accepted-audiences',
    fallback: 'jitsi', parse: p.list,
    description: 'Accepted token audiences, comma-separated, * for any',
  }),
  jitsiAllowAnonymous: setting({
    env: 'COMPAT_JITSI_ALLOW_ANONYMOUS', toml: ['modules', 'compat', 'jitsi_allow_anonymous'], flag: '--compat-jitsi-allow-anonymous',
    fallback: 'false', parse: p.boolean,
    description: 'Admit arrivals without a token as participants (open rooms)',
    install: { module: 'compat', file: 'env', confirm: { question: 'Allow open rooms (arrivals without a token)?', flag: '--open-rooms' } },
  }),
  jitsiWaitingRoom: setting({
    env: 'COMPAT_JITSI_WAITING_ROOM', toml: ['modules', 'compat', 'jitsi_waiting_room'], flag: '--compat-jitsi-waiting-room',
    fallback: 'off', parse: p.oneOf('off', 'guests', 'all'),
    description: 'Embed gateway: waiting room of its rooms (guests: arrivals without a token wait; all: everyone but moderators waits); SERVICE_WAITING_ROOM still rules',
  }),
  jitsiMaxTokenLifetime: setting({
    env: 'COMPAT_JITSI_MAX_TOKEN_LIFETIME', toml: ['modules', 'compat', 'jitsi_max_token_lifetime'], flag: '--compat-jitsi-max-token-lifetime',
    fallback: '86400', parse: p.integerBetween(0, 31_536_000),
    description: 'Embed gateway: the longest validity (seconds, from now or from a past iat) an application\'s token may claim; longer ones are refused; 0: no cap, as the real token module',
  }),
  compatAuthenticatedGuest: setting({
    env: 'COMPAT_AUTHENTICATED_GUEST', toml: ['modules', 'compat', 'authenticated_guest'], flag: '--compat-authenticated-guest',
    fallback: 'false', parse: p.boolean,
    description: 'Meeting API: as upstream\'s authenticatedGuest, a viewer joined without guest=true into an ASK_MODERATOR meeting waits for a moderator like a guest (Greenlight, Canvas); a tenant may say otherwise in the tenants file',
  }),
  jitsiOpenRoomsPerClient: setting({
    env: 'COMPAT_JITSI_OPEN_ROOMS_PER_CLIENT', toml: ['modules', 'compat', 'jitsi_open_rooms_per_client'], flag: '--compat-jitsi-open-rooms-per-client',
    fallback: '20', parse: p.integerBetween(1, 10_000),
    description: 'Open rooms: new rooms one client (an address, an IPv6 /56) may make in 10 minutes by arriving without a token; then 429 with Retry-After',
  }),
  jitsiOpenRoomIdleSecs: setting({
    env: 'COMPAT_JITSI_OPEN_ROOM_IDLE_SECS', toml: ['modules', 'compat', 'jitsi_open_room_idle_secs'], flag: '--compat-jitsi-open-room-idle-secs',
    fallback: '86400', parse: p.integerBetween(1, 31_536_000),
    description: 'Open rooms made by an arrival without a token are deleted, with their records, once unused (no meeting, no arrival) this long',
  }),
  compatEnabled: setting({
    env: 'COMPAT_ENABLED', toml: ['modules', 'compat', 'enabled'], flag: '--compat-enabled',
    fallback: 'auto', parse: p.oneOf('auto', 'true', 'false'),
    description: 'Compat listener: auto starts it when a surface is active (COMPAT_API_SHARED_SECRET set, or the embed gateway: COMPAT_JITSI_APP_SECRET set or COMPAT_JITSI_ALLOW_ANONYMOUS=true) and the module is installed; true always starts it; false never does',
  }),
  compatDefaultRecord: setting({
    env: 'COMPAT_DEFAULT_RECORD', toml: ['modules', 'compat', 'default_record'], flag: '--compat-default-record',
    fallback: 'false', parse: p.boolean,
    description: 'Meeting API: record of a create call that does not say',
    install: { module: 'compat', file: 'room-defaults' },
  }),
  compatDefaultGuestPolicy: setting({
    env: 'COMPAT_DEFAULT_GUEST_POLICY', toml: ['modules', 'compat', 'default_guest_policy'], flag: '--compat-default-guest-policy',
    fallback: 'ALWAYS_ACCEPT', parse: p.oneOf('ALWAYS_ACCEPT', 'ASK_MODERATOR', 'ALWAYS_DENY', 'ALWAYS_ACCEPT_AUTH'),
    description: 'Meeting API: guestPolicy of a create call that does not say (ALWAYS_ACCEPT, ASK_MODERATOR, ALWAYS_DENY or ALWAYS_ACCEPT_AUTH; bare-link guests of the room)',
    install: { module: 'compat', file: 'room-defaults' },
  }),
  compatCallbackAllow: setting({
    env: 'COMPAT_CALLBACK_ALLOW', toml: ['modules', 'compat', 'callback_allow'], flag: '--compat-callback-allow',
    fallback: '', parse: callbackAllowList,
    description: 'Callback targets allowed despite a loopback, private or link-local address (host, host:port, IP or CIDR; comma-separated)',
  }),
  compatTenantHostSuffix: setting({
    env: 'COMPAT_TENANT_HOST_SUFFIX', toml: ['modules', 'compat', 'tenant_host_suffix'], flag: '--compat-tenant-host-suffix',
    fallback: '', parse: hostSuffix,
    description: 'Meeting API: a request to {tenant} + this suffix (e.g. .meet.example.org) is that tenant\'s alone; empty: the host names no tenant',
  }),
  media: setting({
    env: 'SERVICE_MEDIA', toml: ['media', 'backend'], flag: '--media',
    fallback: 'auto', parse: p.oneOf('mesh', 'janus', 'auto'),
    description: 'How meetings carry audio and video: mesh (browser to browser, for a handful of people), janus (the Janus SFU: the daemon runs its own, or uses SERVICE_JANUS_URL; the daemon does not start without it), auto (the default: Janus when its program is found and starts, else mesh with a warning)',
  }),
  janusBin: setting({
    env: 'SERVICE_JANUS_BIN', toml: ['media', 'janus_bin'], flag: '--janus-bin',
    fallback: '/usr/bin/janus', parse: p.path,
    description: 'The Janus program the daemon runs for itself (Debian package janus), with a configuration it generates in <data dir>/janus, its API on 127.0.0.1 only',
  }),
  janusUrl: setting({
    env: 'SERVICE_JANUS_URL', toml: ['media', 'janus_url'], flag: '--janus-url',
    fallback: null, parse: p.httpUrl,
    description: 'An external Janus (its HTTP API, such as http://10.0.0.5:8088/janus) instead of the daemon\'s own; needs SERVICE_JANUS_API_SECRET and SERVICE_JANUS_ROOM_ADMIN_KEY',
  }),
  ...janusSettings,
  janusApiSecret: setting({
    env: 'SERVICE_JANUS_API_SECRET', toml: ['media', 'janus_api_secret'], secret: true,
    fallback: null, parse: janusSecret,
    description: 'The external Janus\'s api_secret (only with SERVICE_JANUS_URL; the daemon\'s own Janus gets a random one per start)',
  }),
  janusRoomAdminKey: setting({
    env: 'SERVICE_JANUS_ROOM_ADMIN_KEY', toml: ['media', 'janus_room_admin_key'], secret: true,
    fallback: null, parse: janusSecret,
    description: 'The external Janus\'s VideoRoom admin_key (only with SERVICE_JANUS_URL)',
  }),
  rtpPorts: setting({
    env: 'SERVICE_RTP_PORTS', toml: ['media', 'rtp_ports'], flag: '--rtp-ports',
    fallback: '40000-40999', parse: portRange,
    description: 'UDP ports the daemon\'s Janus sends and receives media on (low-high); open them in the firewall',
  }),
  publicIp: setting({
    env: 'SERVICE_PUBLIC_IP', toml: ['media', 'public_ip'], flag: '--public-ip',
    fallback: null, parse: ipv4,
    description: 'The public IPv4 address of this machine when it sits behind a 1:1 NAT (cloud hosts): Janus announces it to browsers',
  }),
  janusPublishers: setting({
    env: 'SERVICE_JANUS_PUBLISHERS', toml: ['media', 'janus_publishers'], flag: '--janus-publishers',
    fallback: '100', parse: p.integerBetween(1, 1000),
    description: 'With Janus: at most this many people of one meeting send audio or video at once',
  }),
  mediaPrivatePeers: setting({
    env: 'SERVICE_MEDIA_PRIVATE_PEERS', toml: ['media', 'private_peers'], flag: '--media-private-peers',
    fallback: 'false', parse: p.boolean,
    description: 'With Janus: ICE candidates on private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) reach Janus, for pupils who reach the server over a school LAN; loopback and link-local ones, and host names, never do',
  }),
} satisfies { [K in keyof Config]: Setting<NonNullable<Config[K]>> | Setting<Config[K]> };

export type SettingKey = keyof Config;
