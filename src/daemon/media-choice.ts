import path from 'node:path';
import { EnvironmentError } from '../config/environment-error.js';
import type { Config } from '../config/settings.js';
import { MediaPlacement, type MediaServerStore } from '../engine/cluster/media-servers.js';
import type { ReadinessCheck } from '../engine/health/readiness.js';
import type { MediaBackendFactory } from '../engine/live/media-port.js';
import { randomBase64url } from '../engine/random-text.js';
import { JanusBackend } from '../media/janus/janus-backend.js';
import { placedJanus, singleJanus, type JanusPool } from '../media/janus/janus-pool.js';
import { JanusRooms } from '../media/janus/janus-rooms.js';
import { janusInfo, type JanusEndpoint } from '../media/janus/janus-session.js';
import { MediaRouter } from '../media/media-router.js';
import { MeshSignallingRelay } from '../media/mesh-relay.js';
import { JanusProcess } from './janus-process.js';

export type MediaConfig = Pick<
  Config,
  | 'dataDir'
  | 'media'
  | 'janusBin'
  | 'janusUrl'
  | 'janusUrls'
  | 'janusApiSecret'
  | 'janusRoomAdminKey'
  | 'rtpPorts'
  | 'publicIp'
  | 'janusPublishers'
  | 'mediaPrivatePeers'
>;

export interface MediaLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The media side the daemon runs with: the backend factory, its readiness, and its stop. */
export interface MediaChoice {
  /** 'mesh' when Janus is off or could not start; 'janus' when meetings go through it. */
  readonly kind: 'mesh' | 'janus';
  readonly factory: MediaBackendFactory;
  /** /readyz: whether Janus answers (left out with the mesh). */
  readonly readiness: ReadinessCheck | null;
  /** The daemon's own Janus, when it runs one. */
  readonly process: JanusProcess | null;
  /** SERVICE_JANUS_URLS: where meetings are placed, once the engine opened the store (issue 35 point 6). */
  readonly useStore?: (store: MediaServerStore) => Promise<void>;
  close(): Promise<void>;
}

const meshOnly: MediaChoice = {
  kind: 'mesh',
  factory: (context) => new MeshSignallingRelay(context),
  readiness: null,
  process: null,
  close: async () => {},
};

/**
 * SERVICE_MEDIA: `mesh` runs no SFU; `janus` needs one (an external SERVICE_JANUS_URL, or the
 * daemon's own SERVICE_JANUS_BIN) and the daemon does not start without it; `auto` uses Janus
 * when it answers and otherwise the mesh, saying so in the log.
 */
export async function startMedia(config: MediaConfig, log: MediaLog): Promise<MediaChoice> {
  if (config.media === 'mesh') return meshOnly;
  if (config.janusUrls !== null) return startPool(config, config.janusUrls, log);
  let endpoint: JanusEndpoint;
  let adminKey: string;
  let process: JanusProcess | null = null;
  try {
    if (config.janusUrl !== null) {
      if (config.janusApiSecret === null || config.janusRoomAdminKey === null) {
        throw new Error('SERVICE_JANUS_URL needs SERVICE_JANUS_API_SECRET and SERVICE_JANUS_ROOM_ADMIN_KEY');
      }
      endpoint = { url: config.janusUrl.replace(/\/+$/, ''), apiSecret: config.janusApiSecret };
      adminKey = config.janusRoomAdminKey;
      await janusInfo(endpoint);
    } else {
      process = new JanusProcess({
        bin: config.janusBin,
        configDir: path.join(config.dataDir, 'janus'),
        rtpPorts: config.rtpPorts,
        publicIp: config.publicIp,
        log,
      });
      await process.start();
      endpoint = process.endpoint;
      adminKey = process.roomAdminKey;
    }
  } catch (err) {
    if (config.media === 'janus') {
      throw new EnvironmentError(
        `SERVICE_MEDIA=janus but Janus is not available: ${(err as Error).message}`,
        config.janusUrl !== null
          ? 'start the Janus at SERVICE_JANUS_URL (check its API secret and admin key), or set SERVICE_MEDIA=auto to start on the browser-to-browser mesh while it is down'
          : `install Janus (apt install janus) or set SERVICE_JANUS_BIN to its program (now ${config.janusBin}), or set SERVICE_MEDIA=auto to start on the browser-to-browser mesh without it`,
        { cause: err },
      );
    }
    log.warn(
      { err: (err as Error).message },
      'Janus is not available: meetings use the browser-to-browser mesh (fine for a handful of people)',
    );
    return meshOnly;
  }
  const own = process;
  // An external Janus is pinged in the background: /readyz reads the last answer.
  let externalUp = true;
  const ping = own
    ? null
    : setInterval(() => {
        janusInfo({ ...endpoint, timeoutMs: 2000 }).then(
          () => (externalUp = true),
          () => (externalUp = false),
        );
      }, 5000);
  ping?.unref();
  const up = () => (own ? own.state === 'up' : externalUp);
  // janusPid: pino already puts the daemon's own "pid" on every line, and a JSON line with two is read differently by each tool.
  log.info({ janus: own ? 'own' : 'external', janusPid: own?.pid ?? null }, 'meetings use the Janus SFU');
  return janusChoice(
    config,
    log,
    singleJanus(() => endpoint),
    adminKey,
    up,
    own,
    async () => {
      if (ping) clearInterval(ping);
      await own?.stop();
    },
  );
}

/**
 * SERVICE_JANUS_URLS: every server is pinged every 5 s, and what this node sees is written to the
 * store (alive, or dead since now), so a server that died without a session on it is no longer
 * chosen, and one that came back is chosen again. At least one must answer at start.
 */
async function startPool(config: MediaConfig, urls: readonly string[], log: MediaLog): Promise<MediaChoice> {
  // Config refuses the list without both (config/janus-settings.ts).
  const apiSecret = config.janusApiSecret ?? '';
  const adminKey = config.janusRoomAdminKey ?? '';
  const answers = new Map<string, boolean>();
  const pingAll = () =>
    Promise.all(
      urls.map(async (url) => {
        const alive = await janusInfo({ url, apiSecret, timeoutMs: 2000 }).then(
          () => true,
          () => false,
        );
        answers.set(url, alive);
        await placement?.[alive ? 'markAlive' : 'markDead'](url).catch(() => {});
      }),
    );
  let placement: MediaPlacement | null = null;
  let ready!: (placement: MediaPlacement) => void;
  const placed = new Promise<MediaPlacement>((resolve) => (ready = resolve));
  await pingAll();
  const alive = () => [...answers.values()].some(Boolean);
  if (!alive()) {
    const refusal = new Error(`none of the ${urls.length} Janus servers of SERVICE_JANUS_URLS answers`);
    if (config.media === 'janus')
      throw new EnvironmentError(
        `SERVICE_MEDIA=janus but Janus is not available: ${refusal.message}`,
        'start the Janus servers of SERVICE_JANUS_URLS (check their API secret and admin key), or set SERVICE_MEDIA=auto to start on the browser-to-browser mesh while they are down',
      );
    log.warn({ err: refusal.message }, 'Janus is not available: meetings use the browser-to-browser mesh');
    return meshOnly;
  }
  // Once a minute, and at start: placements of meetings that ended on a node that died come off.
  let rounds = 0;
  const sweep = () =>
    placement?.releaseEnded().catch((err: unknown) => log.warn({ err }, 'Janus loads could not be swept'));
  const ping = setInterval(() => {
    void pingAll();
    if (++rounds % 12 === 0) void sweep();
  }, 5000);
  ping.unref();
  log.info(
    { janus: 'pool', servers: urls.length, alive: [...answers.values()].filter(Boolean).length },
    'meetings use the Janus SFU',
  );
  const choice = janusChoice(
    config,
    log,
    placedJanus(urls, apiSecret, () => placed),
    adminKey,
    alive,
    null,
    () => {
      clearInterval(ping);
      return Promise.resolve();
    },
  );
  return {
    ...choice,
    useStore: async (store) => {
      await store.register(urls);
      placement = new MediaPlacement(store, Math.random, { now: () => new Date() }, urls);
      await pingAll();
      await sweep();
      ready(placement);
    },
  };
}

/** The Janus side over a pool of servers: the backend factory (Janus behind a router with the mesh), readiness, stop. */
function janusChoice(
  config: MediaConfig,
  log: MediaLog,
  pool: JanusPool,
  adminKey: string,
  up: () => boolean,
  own: JanusProcess | null,
  stop: () => Promise<void>,
): MediaChoice {
  const backends: JanusBackend[] = [];
  return {
    kind: 'janus',
    process: own,
    factory: (context) => {
      const rooms = new JanusRooms({
        pool,
        adminKey,
        publishers: config.janusPublishers,
        randomText: () => randomBase64url(18),
        log,
      });
      const janus = new JanusBackend(context, { rooms, log, privatePeers: config.mediaPrivatePeers });
      backends.push(janus);
      // auto: a meeting that starts while Janus restarts runs on the mesh; janus: it waits for Janus.
      const available = config.media === 'janus' ? () => true : up;
      return new MediaRouter(
        new MeshSignallingRelay(context),
        janus,
        available,
        (id) => context.peer(id)?.meetingId ?? null,
      );
    },
    readiness: { name: 'janus', check: up },
    close: async () => {
      await Promise.all(backends.map((backend) => backend.close().catch(() => {})));
      await stop();
    },
  };
}
