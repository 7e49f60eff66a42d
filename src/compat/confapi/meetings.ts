import { contextSlot } from '../../platform/async-context.js';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { LeaseLostError } from '../../engine/cluster/leases.js';
import type { Clock } from '../../engine/clock.js';
import { KeyedQueue } from '../../engine/keyed-queue.js';
import type { MeetingService } from '../../engine/meetings/meeting-service.js';
import type { RoomEntry } from '../../engine/rooms/room.js';
import type { RoomService } from '../../engine/rooms/room-service.js';
import type { WaitingRoomPolicy } from '../../engine/rooms/waiting-room-policy.js';
import type { LiveAttendee, MeetingLiveView } from '../live-view.js';
import { analyticsBody, analyticsCallbackKey } from './analytics.js';
import {
  endCallbackUrl,
  metadataValue,
  recordingReadyBody,
  recordingReadyKeys,
  type CallbackQueue,
} from './callbacks.js';
import type { AsyncCompatStore } from './async-store.js';
import type { CachedCompatStore } from './cached-store.js';
import { guestStatusFor, roomAccessFor, type GuestStatus } from './guest-access.js';
import type { CompatMeeting, EndReason, RecordingRecord } from './model.js';

/** A meeting nobody entered ends after this many minutes unless create says (upstream's meetingExpireIfNoUserJoinedInMinutes default). */
export const defaultUnusedExpiryMin = 5;

/** An emptied meeting ends after this many minutes unless create says (upstream's meetingExpireWhenLastUserLeftInMinutes default). */
export const defaultEmptiedExpiryMin = 1;

/** A create parameter in minutes, as stored (validated by create); the default when absent. */
function minutesOf(meeting: CompatMeeting, name: string, fallback: number): number {
  const value = meeting.settings.extra[name];
  return value === undefined || value.trim() === '' || !/^\d+$/.test(value.trim()) ? fallback : Number(value.trim());
}

/** An ended meeting still answers getMeetingInfo (running false) this long, as upstream keeps it until removal. */
export const endedVisibleMs = 5 * 60_000;

export interface CompatMeetingsDeps {
  /** The asynchronous store; the signer's owners are read from memory at once (cached-store.ts). */
  readonly store: AsyncCompatStore & Pick<CachedCompatStore, 'ownersNow'>;
  readonly rooms: Pick<RoomService, 'find' | 'create' | 'update'>;
  readonly meetings: Pick<MeetingService, 'current' | 'end' | 'present' | 'attendance'>;
  readonly clock: Clock;
  readonly policy: WaitingRoomPolicy;
  readonly callbacks: Pick<CallbackQueue, 'enqueue'>;
  readonly live: () => MeetingLiveView;
  /** The secret a tenant signs its recording-ready callbacks with (its current one; analytics ones are signed by the queue). */
  readonly tenantSecret: (tenantId: string) => string | null;
  readonly onError?: (err: unknown) => void;
}

/**
 * A new engine room id for each meeting: 128 random bits, never derived from the meetingID
 * (platforms' meeting ids are often predictable), so only people given a link can find it.
 */
export function newRoomId(): string {
  return `cf-${randomBytes(16).toString('hex')}`;
}

function roomName(name: string, meetingId: string): string {
  const clean = (s: string) => [...s.replace(/\p{Cc}/gu, ' ').trim()].slice(0, 200).join('').trim();
  return clean(name) || clean(meetingId) || 'Meeting';
}

export interface LiveState {
  readonly running: boolean;
  readonly attendees: readonly LiveAttendee[];
  /** The `userdata-*` pairs of the joins of those present, by participant id (absent: none). */
  readonly customData?: ReadonlyMap<string, readonly (readonly [string, string])[]>;
}

/**
 * The meeting API's meetings over the engine: a compat meeting owns an engine room (made on
 * first create), is linked to the engine meeting that opens when somebody enters, and ends
 * when `end` is called, its duration is over, nobody entered in time, or the engine meeting
 * ended (emptied). Every end fires the meeting's end callback once, and its analytics
 * callback once when somebody entered.
 */
export class CompatMeetings {
  private lastCreateTime = 0;
  /** Since when (ms) an entered meeting has had nobody present, by internal id; absent while somebody is in. */
  private readonly emptySince = new Map<string, number>();
  /**
   * Ends take turns by internal id (see `finish`), creates by tenant and meetingID (see
   * `openOrCreate`): the writes await the store, so two calls on one meeting (two creates of one
   * meetingID, an `end` and the sweep) would otherwise interleave where they ran one after the other.
   */
  private readonly ending = new KeyedQueue(contextSlot());
  private readonly creating = new KeyedQueue(contextSlot());

  constructor(protected readonly deps: CompatMeetingsDeps) {}

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  /** A creation time never used before in this process, so internal ids stay unique. */
  nextCreateTime(): number {
    this.lastCreateTime = Math.max(this.now(), this.lastCreateTime + 1);
    return this.lastCreateTime;
  }

  /**
   * Creates a meeting: its row in the meeting API's store and its engine room, as ONE transaction
   * of the store's port (issue 34 point 2): the room is made inside it, so when the room cannot
   * be made (disk full, a refused write) the row is rolled back and the error goes to the caller,
   * and neither is left. On PostgreSQL, both stores on one database, the port's transaction is the
   * engine's unit of work: row and room commit together. On SQLite they are two files (no
   * transaction spans them, see docs): the room commits inside the row's open transaction, so a
   * kill -9 between the two commits leaves an unlisted room nobody was told of and no row; a row
   * left without its room (written by earlier versions) is still rolled forward by `reconcileRooms`.
   */
  /**
   * The tenant's open meeting of that meetingID (`existed`), or the one `make` gives, created.
   * Two creates of one meetingID take turns, so the second answers the first's meeting.
   */
  openOrCreate(
    tenantId: string,
    meetingId: string,
    make: () => CompatMeeting,
  ): Promise<{ meeting: CompatMeeting; existed: boolean }> {
    return this.creating.run(JSON.stringify([tenantId, meetingId]), async () => {
      const existing = await this.open(tenantId, meetingId);
      if (existing) return { meeting: existing, existed: true };
      const meeting = make();
      await this.create(meeting);
      return { meeting, existed: false };
    });
  }

  private async create(meeting: CompatMeeting): Promise<void> {
    await this.deps.store.transaction(async () => {
      await this.deps.store.insertMeeting(meeting);
      await this.makeRoom(meeting);
    });
  }

  /** The engine room of a meeting: unlisted, reached by its links only. */
  private async makeRoom(meeting: CompatMeeting): Promise<void> {
    const { entry, ...waiting } = roomAccessFor(this.deps.policy, meeting.guestPolicy);
    await this.deps.rooms.create(
      // Its create call's muteOnStart decides, as in the meeting API.
      {
        room_id: meeting.roomId,
        name: roomName(meeting.name, meeting.meetingId),
        ...waiting,
        mics_off_on_entry: false,
      },
      { entry, unlisted: true },
    );
  }

  /**
   * Brings the engine rooms in line with the meetings when the module starts: the room of an
   * open meeting is unlisted and follows its guest policy (and is made if a create died before
   * making it, see `create`), a room whose meetings all ended is closed. Rooms made by earlier
   * versions (ids derived from the meetingID) are covered too.
   */
  async reconcileRooms(): Promise<void> {
    const open = new Set<string>();
    for (const meeting of await this.deps.store.openMeetings()) {
      open.add(meeting.roomId);
      if ((await this.deps.rooms.find(meeting.roomId)) === null) await this.completeCreate(meeting);
      else await this.setEntry(meeting.roomId, roomAccessFor(this.deps.policy, meeting.guestPolicy).entry);
    }
    for (const roomId of await this.deps.store.endedRoomIds())
      if (!open.has(roomId)) await this.setEntry(roomId, 'closed');
  }

  /** A start must not fail on one meeting's room: the meeting stays without it, and the failure is logged. */
  private async completeCreate(meeting: CompatMeeting): Promise<void> {
    try {
      await this.makeRoom(meeting);
    } catch (err) {
      this.deps.onError?.(err);
    }
  }

  private async setEntry(roomId: string, entry: RoomEntry): Promise<void> {
    const room = await this.deps.rooms.find(roomId);
    if (room && (room.entry !== entry || !room.unlisted))
      await this.deps.rooms.update(roomId, {}, { entry, unlisted: true });
  }

  /** What a `guest=true` join of this meeting meets. */
  guestStatus(meeting: CompatMeeting): GuestStatus {
    return guestStatusFor(this.deps.policy, meeting.guestPolicy);
  }

  /** The tenant's meeting not ended, brought up to date with the engine first. */
  async open(tenantId: string, meetingId: string): Promise<CompatMeeting | null> {
    const found = await this.deps.store.openMeeting(tenantId, meetingId);
    if (!found) return null;
    const current = await this.refresh(found);
    return current.endTime === null ? current : null;
  }

  /** The tenant's newest meeting of that id (refreshed when open). */
  async latest(tenantId: string, meetingId: string): Promise<CompatMeeting | null> {
    const found = await this.deps.store.latestMeeting(tenantId, meetingId);
    return found && found.endTime === null ? this.refresh(found) : found;
  }

  /** Open, or ended within `endedVisibleMs`: what getMeetingInfo still describes. */
  async visible(tenantId: string, meetingId: string): Promise<CompatMeeting | null> {
    const latest = await this.latest(tenantId, meetingId);
    if (!latest) return null;
    if (latest.endTime === null || this.now() - latest.endTime <= endedVisibleMs) return latest;
    return null;
  }

  async openOf(tenantId: string): Promise<CompatMeeting[]> {
    const open: CompatMeeting[] = [];
    for (const m of await this.deps.store.openMeetingsOf(tenantId)) open.push(await this.refresh(m));
    return open.filter((m) => m.endTime === null);
  }

  owners(meetingId: string): readonly string[] {
    return this.deps.store.ownersNow(meetingId);
  }

  async liveState(meeting: CompatMeeting): Promise<LiveState> {
    if (meeting.endTime !== null || meeting.engineMeetingId === null) return { running: false, attendees: [] };
    const engine = this.deps.meetings.current(meeting.roomId);
    if (!engine || engine.meetingId !== meeting.engineMeetingId) return { running: false, attendees: [] };
    const attendees = this.deps.live().attendees(meeting.roomId);
    return { running: attendees.length > 0, attendees, ...(await this.customDataOf(meeting, attendees)) };
  }

  /** The custom data of those present, matched through the person's id (uid) the engine keeps from her join token. */
  private async customDataOf(
    meeting: CompatMeeting,
    attendees: readonly LiveAttendee[],
  ): Promise<{ customData?: LiveState['customData'] }> {
    if (attendees.length === 0) return {};
    const byUser = await this.deps.store.customDataOf(meeting.internalId);
    if (byUser.size === 0) return {};
    const customData = new Map<string, readonly (readonly [string, string])[]>();
    const present = new Set(attendees.map((a) => a.participantId));
    try {
      for (const p of (await this.deps.meetings.attendance(meeting.roomId, meeting.engineMeetingId!)).participants) {
        const data = p.externalId === undefined ? undefined : byUser.get(p.externalId);
        if (data !== undefined && present.has(p.participantId)) customData.set(p.participantId, data);
      }
    } catch {
      // The engine no longer knows the meeting: nobody's custom data is shown.
    }
    return { customData };
  }

  presentCount(meeting: CompatMeeting): number {
    return this.deps.meetings.present(meeting.roomId).length;
  }

  /**
   * Follows the engine: links the engine meeting once somebody entered, and ends the compat
   * meeting when that engine meeting is gone (emptied), its duration is over, or nobody came.
   */
  async refresh(meeting: CompatMeeting): Promise<CompatMeeting> {
    try {
      return await this.refreshNow(meeting);
    } catch (err) {
      // Another node serves its room (issue 35): this node's memory cannot judge it, and the fence refused the write.
      if (err instanceof LeaseLostError) return meeting;
      throw err;
    }
  }

  private async refreshNow(meeting: CompatMeeting): Promise<CompatMeeting> {
    if (meeting.endTime !== null) return meeting;
    const now = this.now();
    const engine = this.deps.meetings.current(meeting.roomId);
    let current = meeting;
    if (current.engineMeetingId === null && engine) {
      current = { ...current, engineMeetingId: engine.meetingId, startTime: Date.parse(engine.startedAt) };
      await this.deps.store.updateMeeting(current);
    }
    if (current.engineMeetingId !== null && (!engine || engine.meetingId !== current.engineMeetingId)) {
      return this.finish(current, 'empty', false);
    }
    if (current.durationMin > 0 && now >= current.createTime + current.durationMin * 60_000) {
      return this.end(current, 'duration');
    }
    if (current.engineMeetingId === null) {
      const unusedMin = minutesOf(current, 'meetingExpireIfNoUserJoinedInMinutes', defaultUnusedExpiryMin);
      return now - current.createTime >= unusedMin * 60_000 ? this.finish(current, 'expired', false) : current;
    }
    const since = await this.emptySinceOf(current, now);
    if (since === null) return current;
    const unusedMin = minutesOf(current, 'meetingExpireIfNoUserJoinedInMinutes', defaultUnusedExpiryMin);
    // Nobody entered yet (somebody knocked and waits): the unused rule still counts from create.
    if (since === 'never')
      return now - current.createTime >= unusedMin * 60_000 ? this.end(current, 'expired') : current;
    const emptiedMin = minutesOf(current, 'meetingExpireWhenLastUserLeftInMinutes', defaultEmptiedExpiryMin);
    // 0: this rule never ends it (the engine's SERVICE_MEETING_EMPTY_GRACE_SECS still does).
    if (emptiedMin > 0 && now - since >= emptiedMin * 60_000) return this.end(current, 'empty');
    return current;
  }

  /**
   * Since when (ms) the entered meeting has had nobody present; null while somebody is in;
   * `never` when nobody ever entered it. Measured from the last person's leaving as the engine
   * recorded it, so a call that comes late (or the first sweep after a restart) counts from then.
   */
  private async emptySinceOf(meeting: CompatMeeting, now: number): Promise<number | 'never' | null> {
    if (this.deps.meetings.present(meeting.roomId).length > 0) {
      this.emptySince.delete(meeting.internalId);
      return null;
    }
    const known = this.emptySince.get(meeting.internalId);
    if (known !== undefined) return known;
    let lefts: number[] = [];
    try {
      lefts = (await this.deps.meetings.attendance(meeting.roomId, meeting.engineMeetingId!)).participants.map((p) =>
        p.leftAt === null ? now : Date.parse(p.leftAt),
      );
    } catch {
      // The engine no longer knows it: counted from now.
      lefts = [now];
    }
    if (lefts.length === 0) return 'never';
    const since = Math.min(now, Math.max(...lefts.map((at) => (Number.isNaN(at) ? now : at))));
    this.emptySince.set(meeting.internalId, since);
    return since;
  }

  /** Ends the meeting: the engine meeting is closed (everyone is out) and the end callback is queued. */
  async end(meeting: CompatMeeting, reason: EndReason, actorName = 'confapi'): Promise<CompatMeeting> {
    const engine = this.deps.meetings.current(meeting.roomId);
    if (engine && (meeting.engineMeetingId === null || engine.meetingId === meeting.engineMeetingId)) {
      await this.deps.meetings.end(meeting.roomId, { kind: 'api', name: actorName });
    }
    return this.finish(meeting, reason, reason === 'end');
  }

  /**
   * Ends the meeting once: its ends (a sweep, an `end` call, a refresh by another call) may now
   * overlap across the store's awaits, so they take turns per meeting, and a meeting the store
   * already holds as ended is answered as it is (its callbacks are not queued twice).
   */
  private finish(meeting: CompatMeeting, reason: EndReason, forcibly: boolean): Promise<CompatMeeting> {
    return this.ending.run(meeting.internalId, async () => {
      const stored = await this.deps.store.meeting(meeting.internalId);
      if (stored !== null && stored.endTime !== null) return stored;
      // The record as last written (another call may have linked its engine meeting meanwhile).
      return this.finishNow(stored ?? meeting, reason, forcibly);
    });
  }

  private async finishNow(meeting: CompatMeeting, reason: EndReason, forcibly: boolean): Promise<CompatMeeting> {
    this.emptySince.delete(meeting.internalId);
    // Closed first: from now on nobody enters, not even with a join link issued before the end.
    await this.setEntry(meeting.roomId, 'closed');
    const ended: CompatMeeting = { ...meeting, endTime: this.now(), endReason: reason, forciblyEnded: forcibly };
    const url = metadataValue(meeting, 'endcallbackurl');
    const analyticsUrl = metadataValue(meeting, analyticsCallbackKey);
    // Built now, from the engine's records, and stored with the job: a restart before delivery still sends it.
    const analytics =
      analyticsUrl === null
        ? null
        : await analyticsBody({ engineMeetings: this.deps.meetings, live: this.deps.live }, ended);
    await this.deps.store.transaction(async () => {
      await this.deps.store.updateMeeting(ended);
      if (url !== null) {
        let target: string;
        try {
          target = endCallbackUrl(url, meeting.meetingId);
        } catch {
          target = url;
        }
        await this.deps.callbacks.enqueue({
          kind: 'meeting_ended',
          tenantId: meeting.tenantId,
          internalId: meeting.internalId,
          method: 'GET',
          url: target,
          body: null,
          contentType: null,
        });
      }
      if (analyticsUrl !== null && analytics !== null) {
        await this.deps.callbacks.enqueue({
          kind: 'analytics',
          tenantId: meeting.tenantId,
          internalId: meeting.internalId,
          method: 'POST',
          url: analyticsUrl,
          body: analytics,
          contentType: 'application/json',
        });
      }
    });
    return ended;
  }

  /**
   * A recording of `meeting` is ready: its metadata is stored and the recording-ready
   * callback (if the meeting named one) is queued, signed with the owner's secret. Nothing
   * calls this yet; a recording module will.
   */
  async recordingReady(
    meeting: CompatMeeting,
    recording: Omit<RecordingRecord, 'tenantId' | 'meetingId' | 'internalId'>,
  ): Promise<RecordingRecord> {
    const record: RecordingRecord = {
      ...recording,
      tenantId: meeting.tenantId,
      meetingId: meeting.meetingId,
      internalId: meeting.internalId,
    };
    await this.deps.store.insertRecording(record);
    const url = recordingReadyKeys.map((key) => metadataValue(meeting, key)).find((v) => v !== null) ?? null;
    const secret = this.deps.tenantSecret(meeting.tenantId);
    if (url !== null && secret !== null) {
      const body = await recordingReadyBody(secret, meeting.meetingId, record.recordId);
      await this.deps.callbacks.enqueue({
        kind: 'recording_ready',
        tenantId: meeting.tenantId,
        internalId: meeting.internalId,
        method: 'POST',
        url,
        body,
        contentType: 'application/x-www-form-urlencoded',
      });
    }
    return record;
  }

  /** Brings every open meeting up to date; the module runs it every second. */
  async sweep(): Promise<void> {
    for (const meeting of await this.deps.store.openMeetings()) {
      try {
        await this.refresh(meeting);
      } catch (err) {
        this.deps.onError?.(err);
      }
    }
  }
}

export function internalIdOf(meetingId: string, createTime: number): string {
  return `${createHash('sha1').update(meetingId, 'utf8').digest('hex')}-${createTime}`;
}

export function randomVoiceBridge(): string {
  return String(randomInt(10_000, 100_000));
}
