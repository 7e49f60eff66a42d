import type { MediaServerRecord, RoomKeys, ServerChoice } from '../engine/cluster/media-servers.js';
import type { Db } from './database.js';

interface ServerRow {
  url: string;
  load: number;
  down_since: string | null;
}

/**
 * The Janus servers and their meetings in SQLite (migration 024), synchronous: async-sqlite.ts
 * gives it its turn with the open units. A placement is one IMMEDIATE transaction, the choice
 * made inside it, so the load it reads is the load it reserves on.
 */
export class SqliteMediaServerStore {
  private readonly insert;
  private readonly live;
  private readonly all;
  private readonly placedOn;
  private readonly record;
  private readonly remove;
  private readonly bump;
  private readonly down;
  private readonly up;
  private readonly keep;
  private readonly ended;
  private readonly recount;

  constructor(private readonly db: Db) {
    this.insert = db.prepare<[string]>('INSERT INTO janus_servers (url) VALUES (?) ON CONFLICT (url) DO NOTHING');
    this.live = db.prepare<[], ServerRow>(
      'SELECT url, load, down_since FROM janus_servers WHERE down_since IS NULL ORDER BY url',
    );
    this.all = db.prepare<[], ServerRow>('SELECT url, load, down_since FROM janus_servers ORDER BY url');
    this.placedOn = db.prepare<[string], { url: string }>('SELECT url FROM janus_placements WHERE meeting_id = ?');
    this.record = db.prepare<[string, string]>(
      `INSERT INTO janus_placements (meeting_id, url) VALUES (?, ?)
       ON CONFLICT (meeting_id) DO UPDATE SET url = excluded.url`,
    );
    this.remove = db.prepare<[string]>('DELETE FROM janus_placements WHERE meeting_id = ?');
    this.bump = db.prepare<[number, string]>('UPDATE janus_servers SET load = load + ? WHERE url = ?');
    this.down = db.prepare<[string, string]>(
      'UPDATE janus_servers SET down_since = ? WHERE url = ? AND down_since IS NULL',
    );
    this.up = db.prepare<[string]>(
      'UPDATE janus_servers SET down_since = NULL WHERE url = ? AND down_since IS NOT NULL',
    );
    this.ended = db.prepare<[]>(
      `DELETE FROM janus_placements WHERE meeting_id NOT IN (SELECT meeting_id FROM meetings WHERE ended_at IS NULL)`,
    );
    this.recount = db.prepare<[]>(
      'UPDATE janus_servers SET load = (SELECT count(*) FROM janus_placements p WHERE p.url = janus_servers.url)',
    );
    this.keep = db.prepare<[string, string, string], { room_secret: string; room_pin: string }>(
      `UPDATE janus_placements SET room_secret = coalesce(room_secret, ?), room_pin = coalesce(room_pin, ?)
       WHERE meeting_id = ? RETURNING room_secret, room_pin`,
    );
  }

  register(urls: readonly string[]): void {
    this.db.transaction(() => {
      for (const url of urls) this.insert.run(url);
    })();
  }

  place(meetingId: string, choose: ServerChoice, avoid: string | null): string | null {
    return this.db
      .transaction(() => {
        const live = this.live.all();
        const current = this.placedOn.get(meetingId)?.url;
        if (current !== undefined && current !== avoid && live.some((row) => row.url === current)) return current;
        const candidates = live.filter((row) => row.url !== avoid).map((row) => ({ url: row.url, load: row.load }));
        const url = candidates.length > 0 ? choose(candidates) : null;
        if (url === null || !candidates.some((row) => row.url === url)) return null;
        if (current !== undefined) this.bump.run(-1, current);
        this.bump.run(1, url);
        this.record.run(meetingId, url);
        return url;
      })
      .immediate();
  }

  roomKeys(meetingId: string, proposed: RoomKeys): RoomKeys {
    const kept = this.keep.get(proposed.secret, proposed.pin, meetingId);
    return kept ? { secret: kept.room_secret, pin: kept.room_pin } : proposed;
  }

  release(meetingId: string): void {
    this.db
      .transaction(() => {
        const current = this.placedOn.get(meetingId)?.url;
        if (current === undefined) return;
        this.remove.run(meetingId);
        this.bump.run(-1, current);
      })
      .immediate();
  }

  releaseEnded(): number {
    return this.db
      .transaction(() => {
        const released = this.ended.run().changes;
        if (released > 0) this.recount.run();
        return released;
      })
      .immediate();
  }

  setDown(url: string, downSince: Date | null): void {
    if (downSince === null) this.up.run(url);
    else this.down.run(downSince.toISOString(), url);
  }

  servers(): MediaServerRecord[] {
    return this.all.all().map((row) => ({
      url: row.url,
      load: row.load,
      downSince: row.down_since === null ? null : new Date(row.down_since),
    }));
  }

  serverOf(meetingId: string): string | null {
    return this.placedOn.get(meetingId)?.url ?? null;
  }
}
