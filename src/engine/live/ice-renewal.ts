import type { IceServer } from '../../protocol/live.js';
import type { Scheduler } from '../clock.js';
import type { EngineLog } from '../listeners.js';
import { presentIn } from '../meetings/meeting.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import { guarded } from './live-errors.js';
import type { Member, RoomState } from './room-state.js';

/** The media network's credentials, minted outside the engine (the TURN server's shared secret is the listener's). */
export interface IceCredentials {
  /** Fresh servers for one participant; null when nothing in them expires (no TURN): nothing to renew. */
  serversFor(participantId: string): readonly IceServer[] | null;
  /** How long a TURN credential lives. */
  readonly lifetimeMs: number;
}

interface IceRenewalDeps {
  readonly meetings: Pick<MeetingService, 'participant'>;
  readonly scheduler: Scheduler;
  readonly log: EngineLog;
  readonly ice?: IceCredentials;
}

/**
 * Keeps a connected participant's TURN credential alive, and only hers: a credential lives an
 * hour (not the session's 12), so one kept after she left or was removed lapses soon. While her
 * socket is open she gets fresh servers when it opens (a reconnect may come late in the last
 * credential's life) and again at three quarters of each lifetime; a member gone from the hub,
 * or no longer present in the meeting, gets none and her timer ends.
 */
export class IceRenewal {
  private readonly timers = new Map<Member, unknown>();

  constructor(private readonly deps: IceRenewalDeps) {}

  connected(state: RoomState, member: Member): void {
    this.renew(state, member);
  }

  disconnected(member: Member): void {
    const timer = this.timers.get(member);
    if (timer === undefined) return;
    this.deps.scheduler.clearTimeout(timer);
    this.timers.delete(member);
  }

  close(): void {
    for (const timer of this.timers.values()) this.deps.scheduler.clearTimeout(timer);
    this.timers.clear();
  }

  private renew(state: RoomState, member: Member): void {
    this.timers.delete(member);
    const ice = this.deps.ice;
    if (!ice || member.gone) return;
    if (
      !presentIn(this.deps.meetings.participant(member.participantId), {
        meetingId: state.meetingId,
        roomId: state.roomId,
      })
    )
      return;
    const servers = ice.serversFor(member.participantId);
    if (servers === null) return;
    member.outbox.send({ type: 'ice_servers', ice_servers: servers });
    const every = Math.max(1_000, Math.floor((ice.lifetimeMs * 3) / 4));
    this.timers.set(
      member,
      this.deps.scheduler.setTimeout(
        () => guarded(this.deps.log, 'ice renewal', () => this.renew(state, member)),
        every,
      ),
    );
  }
}
