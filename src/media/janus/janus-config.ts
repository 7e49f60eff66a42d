/**
 * The configuration of the Janus instance the daemon runs for itself: a private SFU reached
 * only by the daemon. Only the VideoRoom plugin and the HTTP transport load; the HTTP API
 * listens on 127.0.0.1 on a port of our choosing (Janus's own default, 8088, is ours too);
 * every request must carry the API secret; the Admin API is off (rooms are managed through the
 * plugin with each room's own secret); no room exists until the daemon creates one.
 *
 * Pure text: the daemon writes the files (src/daemon/janus-process.ts).
 */
export interface JanusConfigOptions {
  /** The folder the files are written to (Janus is started with `-F` on it). */
  readonly configDir: string;
  /** The loopback port of the HTTP API. */
  readonly httpPort: number;
  /** Required on every Janus API request (`apisecret`); random per start. */
  readonly apiSecret: string;
  /** Required to create rooms (`admin_key` of the VideoRoom plugin); random per start. */
  readonly roomAdminKey: string;
  /** UDP ports media may use, both ends included. */
  readonly rtpPorts: { readonly min: number; readonly max: number };
  /** The public IPv4 address put in Janus's host candidates when it sits behind a 1:1 NAT. */
  readonly publicIp: string | null;
  /** A session with no request for this long is dropped by Janus (the client keeps it alive). */
  readonly sessionTimeoutSecs: number;
  /**
   * Threads that carry every handle's media (`event_loops`), one per CPU. Janus's default is a
   * thread per handle: each packet relayed to each viewer then wakes that viewer's thread, and
   * the bench measured about 50 µs of Janus CPU per video packet delivered; with shared loops,
   * 20-25 µs (bench/README.md, sfu).
   */
  readonly eventLoops: number;
}

/** Every plugin, transport, event handler and logger the Debian package ships, minus those we use. */
const unusedPlugins = [
  'audiobridge',
  'duktape',
  'echotest',
  'lua',
  'nosip',
  'recordplay',
  'sip',
  'streaming',
  'textroom',
  'videocall',
  'voicemail',
].map((name) => `libjanus_${name}.so`);
const unusedTransports = ['websockets', 'pfunix', 'mqtt', 'nanomsg', 'rabbitmq'].map((name) => `libjanus_${name}.so`);
const unusedEventHandlers = ['gelfevh', 'mqttevh', 'nanomsgevh', 'rabbitmqevh', 'sampleevh', 'wsevh'].map(
  (name) => `libjanus_${name}.so`,
);

/** A libconfig string: quotes and backslashes escaped; control characters are refused, not written. */
export function configString(value: string): string {
  if (/[\u0000-\u001f\u007f]/.test(value))
    throw new Error('a Janus configuration value may not hold control characters');
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function validate(options: JanusConfigOptions): void {
  const port = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535;
  if (!port(options.httpPort)) throw new Error(`the Janus HTTP port must be 1-65535, not ${options.httpPort}`);
  const { min, max } = options.rtpPorts;
  if (!port(min) || !port(max) || min > max)
    throw new Error(`the RTP port range must be two ports, low to high, not ${min}-${max}`);
  if (!/^[A-Za-z0-9_-]{16,}$/.test(options.apiSecret))
    throw new Error('the Janus API secret must be 16 or more URL-safe characters');
  if (!/^[A-Za-z0-9_-]{16,}$/.test(options.roomAdminKey))
    throw new Error('the VideoRoom admin key must be 16 or more URL-safe characters');
  if (options.publicIp !== null && !/^\d{1,3}(\.\d{1,3}){3}$/.test(options.publicIp)) {
    throw new Error('the public IP must be an IPv4 address');
  }
  if (!Number.isInteger(options.sessionTimeoutSecs) || options.sessionTimeoutSecs < 10) {
    throw new Error('the Janus session timeout must be a whole number of seconds, 10 or more');
  }
  if (!Number.isInteger(options.eventLoops) || options.eventLoops < 1 || options.eventLoops > 256) {
    throw new Error(`the Janus event loops must be a whole number from 1 to 256, not ${options.eventLoops}`);
  }
}

/** How long a session whose transport went away can be claimed by another client. */
const reclaimSessionSecs = 10;

/** The files of the configuration folder, by name. */
export function janusConfigFiles(options: JanusConfigOptions): Record<string, string> {
  validate(options);
  const { min, max } = options.rtpPorts;
  const main = [
    'general: {',
    `  configs_folder = ${configString(options.configDir)}`,
    '  debug_level = 4',
    '  server_name = "meet-sfu"',
    `  session_timeout = ${options.sessionTimeoutSecs}`,
    // A session whose transport went away stays this long for another client to `claim` it
    // (issue 35 point 6: a node that takes a meeting over). Over the HTTP transport the daemon
    // uses, a session is bound to no connection and lives until session_timeout without a
    // keepalive; this covers a transport that is (a WebSocket one).
    `  reclaim_session_timeout = ${reclaimSessionSecs}`,
    `  event_loops = ${options.eventLoops}`,
    `  api_secret = ${configString(options.apiSecret)}`,
    '  token_auth = false',
    '  event_handlers = false',
    '  protected_folders = ["/bin", "/boot", "/dev", "/etc", "/initrd", "/lib", "/lib32", "/lib64", "/proc", "/sbin", "/sys", "/usr", "/var"]',
    '}',
    'media: {',
    `  rtp_port_range = ${configString(`${min}-${max}`)}`,
    '}',
    'nat: {',
    ...(options.publicIp === null ? [] : [`  nat_1_1_mapping = ${configString(options.publicIp)}`]),
    '  ice_ignore_list = "vmnet"',
    '}',
    'plugins: {',
    `  disable = ${configString(unusedPlugins.join(','))}`,
    '}',
    'transports: {',
    `  disable = ${configString(unusedTransports.join(','))}`,
    '}',
    'events: {',
    `  disable = ${configString(unusedEventHandlers.join(','))}`,
    '}',
    'loggers: {',
    '  disable = "libjanus_jsonlog.so"',
    '}',
    '',
  ].join('\n');
  const http = [
    'general: {',
    '  json = "compact"',
    '  base_path = "/janus"',
    '  http = true',
    `  port = ${options.httpPort}`,
    '  ip = "127.0.0.1"',
    '  https = false',
    '}',
    'admin: {',
    '  admin_base_path = "/admin"',
    '  admin_http = false',
    '  admin_https = false',
    '}',
    'cors: {',
    '}',
    '',
  ].join('\n');
  // No static rooms: every room is made by the daemon for a meeting, with its own secret and pin.
  const videoroom = [
    'general: {',
    `  admin_key = ${configString(options.roomAdminKey)}`,
    '  lock_rtp_forward = true',
    '  string_ids = true',
    '}',
    '',
  ].join('\n');
  return {
    'janus.jcfg': main,
    'janus.transport.http.jcfg': http,
    'janus.plugin.videoroom.jcfg': videoroom,
  };
}
