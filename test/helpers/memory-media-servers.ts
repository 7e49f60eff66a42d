import type {
  MediaServerRecord,
  MediaServerStore,
  RoomKeys,
  ServerChoice,
} from '../../src/engine/cluster/media-servers.js';

/** The Janus servers in memory, with the stores' rules (test/service/cluster/media-servers.test.ts holds them equal). */
export class MemoryMediaServers implements MediaServerStore {
  private readonly rows = new Map<string, { load: number; downSince: Date | null }>();
  private readonly placed = new Map<string, string>();
  private readonly keys = new Map<string, RoomKeys>();

  /** @param open Whether a meeting is open (the engine's meetings); every one is, unless told. */
  constructor(private readonly open: (meetingId: string) => boolean = () => true) {}

  register(urls: readonly string[]): Promise<void> {
    for (const url of urls) if (!this.rows.has(url)) this.rows.set(url, { load: 0, downSince: null });
    return Promise.resolve();
  }

  place(meetingId: string, choose: ServerChoice, avoid: string | null): Promise<string | null> {
    const current = this.placed.get(meetingId);
    if (current !== undefined && current !== avoid && this.rows.get(current)?.downSince === null)
      return Promise.resolve(current);
    const live = [...this.rows]
      .filter(([url, row]) => row.downSince === null && url !== avoid)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([url, row]) => ({ url, load: row.load }));
    const url = live.length > 0 ? choose(live) : null;
    if (url === null || !this.rows.has(url)) return Promise.resolve(null);
    if (current !== undefined) this.rows.get(current)!.load -= 1;
    this.rows.get(url)!.load += 1;
    this.placed.set(meetingId, url);
    return Promise.resolve(url);
  }

  roomKeys(meetingId: string, proposed: RoomKeys): Promise<RoomKeys> {
    if (!this.placed.has(meetingId)) return Promise.resolve(proposed);
    if (!this.keys.has(meetingId)) this.keys.set(meetingId, proposed);
    return Promise.resolve(this.keys.get(meetingId)!);
  }

  release(meetingId: string): Promise<void> {
    const url = this.placed.get(meetingId);
    if (url !== undefined) {
      this.placed.delete(meetingId);
      this.keys.delete(meetingId);
      this.rows.get(url)!.load -= 1;
    }
    return Promise.resolve();
  }

  async releaseEnded(): Promise<number> {
    const ended = [...this.placed.keys()].filter((meetingId) => !this.open(meetingId));
    for (const meetingId of ended) await this.release(meetingId);
    return ended.length;
  }

  setDown(url: string, downSince: Date | null): Promise<void> {
    const row = this.rows.get(url);
    if (row && (downSince === null || row.downSince === null)) row.downSince = downSince;
    return Promise.resolve();
  }

  servers(): Promise<MediaServerRecord[]> {
    return Promise.resolve(
      [...this.rows]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([url, row]) => ({ url, load: row.load, downSince: row.downSince })),
    );
  }

  serverOf(meetingId: string): Promise<string | null> {
    return Promise.resolve(this.placed.get(meetingId) ?? null);
  }
}
