import type {
  MediaServerRecord,
  MediaServerStore,
  RoomKeys,
  ServerChoice,
} from '../../engine/cluster/media-servers.js';
import type { Sql } from '../../platform/postgres.js';

interface ServerRow {
  url: string;
  load: number;
  down_since: Date | null;
}

/** The Janus servers of a cluster and their meetings in meet_engine.janus_servers and janus_placements (migration 024). */
export class PostgresMediaServerStore implements MediaServerStore {
  constructor(private readonly sql: Sql) {}

  async register(urls: readonly string[]): Promise<void> {
    if (urls.length === 0) return;
    await this.sql`
      INSERT INTO janus_servers (url) SELECT unnest(${[...urls]}::text[]) ON CONFLICT (url) DO NOTHING`;
  }

  async place(meetingId: string, choose: ServerChoice, avoid: string | null): Promise<string | null> {
    return this.sql.begin(async (tx) => {
      // The live servers' rows locked in one order: every node's placement waits for the one
      // under way and then reads the load it reserved (READ COMMITTED reads a locked row anew).
      const live = await tx<ServerRow[]>`
        SELECT url, load, down_since FROM janus_servers WHERE down_since IS NULL ORDER BY url FOR UPDATE`;
      const [placed] = await tx<{ url: string }[]>`
        SELECT url FROM janus_placements WHERE meeting_id = ${meetingId}`;
      const current = placed?.url;
      if (current !== undefined && current !== avoid && live.some((row) => row.url === current)) return current;
      const candidates = live.filter((row) => row.url !== avoid).map((row) => ({ url: row.url, load: row.load }));
      const url = candidates.length > 0 ? choose(candidates) : null;
      if (url === null || !candidates.some((row) => row.url === url)) return null;
      if (current !== undefined) await tx`UPDATE janus_servers SET load = load - 1 WHERE url = ${current}`;
      await tx`UPDATE janus_servers SET load = load + 1 WHERE url = ${url}`;
      await tx`
        INSERT INTO janus_placements (meeting_id, url) VALUES (${meetingId}, ${url})
        ON CONFLICT (meeting_id) DO UPDATE SET url = EXCLUDED.url`;
      return url;
    });
  }

  async roomKeys(meetingId: string, proposed: RoomKeys): Promise<RoomKeys> {
    const [kept] = await this.sql<{ room_secret: string; room_pin: string }[]>`
      UPDATE janus_placements SET room_secret = coalesce(room_secret, ${proposed.secret}),
        room_pin = coalesce(room_pin, ${proposed.pin})
      WHERE meeting_id = ${meetingId} RETURNING room_secret, room_pin`;
    return kept ? { secret: kept.room_secret, pin: kept.room_pin } : proposed;
  }

  async release(meetingId: string): Promise<void> {
    await this.sql`
      WITH gone AS (DELETE FROM janus_placements WHERE meeting_id = ${meetingId} RETURNING url)
      UPDATE janus_servers s SET load = s.load - 1 FROM gone WHERE s.url = gone.url`;
  }

  async releaseEnded(): Promise<number> {
    const [row] = await this.sql<{ released: number }[]>`
      WITH gone AS (
        DELETE FROM janus_placements p
        WHERE NOT EXISTS (SELECT 1 FROM meetings m WHERE m.meeting_id = p.meeting_id AND m.ended_at IS NULL)
        RETURNING url
      ), counted AS (
        UPDATE janus_servers s SET load = s.load - g.n
        FROM (SELECT url, count(*)::int AS n FROM gone GROUP BY url) g WHERE s.url = g.url
        RETURNING g.n
      )
      SELECT coalesce(sum(n), 0)::int AS released FROM counted`;
    return row?.released ?? 0;
  }

  async setDown(url: string, downSince: Date | null): Promise<void> {
    if (downSince === null)
      await this.sql`UPDATE janus_servers SET down_since = NULL WHERE url = ${url} AND down_since IS NOT NULL`;
    else await this.sql`UPDATE janus_servers SET down_since = ${downSince} WHERE url = ${url} AND down_since IS NULL`;
  }

  async servers(): Promise<MediaServerRecord[]> {
    const rows = await this.sql<ServerRow[]>`SELECT url, load, down_since FROM janus_servers ORDER BY url`;
    return rows.map((row) => ({ url: row.url, load: row.load, downSince: row.down_since }));
  }

  async serverOf(meetingId: string): Promise<string | null> {
    const [row] = await this.sql<{ url: string }[]>`SELECT url FROM janus_placements WHERE meeting_id = ${meetingId}`;
    return row?.url ?? null;
  }
}
