import type { ParticipantView, ServerMessage } from '../protocol/live.js';
import { roomApi, type Joined } from './api.js';
import { answerRequest } from './embed-answers.js';
import { classroomCommand, classroomCommandNames, handUpdates, type HandsTold } from './embed-classroom.js';
import type { Devices } from './devices.js';
import { answerDevices, deviceRequests } from './embed-devices.js';
import { errorOccurred, joinedEvents, panelEvents, participantJoined, type EmbedEvent } from './embed-events.js';
import { prejoinShown, readFragment, type Settings } from './embed-settings.js';
import type { LeaveReason, LocalState, MeetingActions, MeetingHooks, PanelSeen } from './meeting-hooks.js';

/**
 * The page's side of external_api.js (src/web/embed/external-api.ts holds the envelope):
 * when the page was opened with `embed=1` inside a frame, it tells the embedding page what
 * happens in the meeting and carries out its commands as the local person would. Nothing a
 * message says raises a role: every gesture goes through the session the person already has,
 * and the server decides.
 */

const envelope = 'v1';
const maxChatLength = 2000;
/** The server's limits for a name and a subject, checked here to warn at once; the server decides. */
const maxNameLength = 64;
const maxSubjectLength = 128;

/** The name in the service's own join token (its payload is not secret; the server checks it). */
function nameInJoinToken(token: string | null): string {
  try {
    const payload = JSON.parse(atob((token ?? '').split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as {
      name?: unknown;
    };
    return typeof payload.name === 'string' ? payload.name : '';
  } catch {
    return '';
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

export class EmbedBridge {
  readonly hooks: MeetingHooks;
  private readonly settings: Settings;
  private readonly roomName: string;
  private actions: MeetingActions | null = null;
  private roomId = '';
  private joined = false;
  private selfId = '';
  private readonly participants = new Map<string, ParticipantView>();
  private local: LocalState = { audio: true, video: true, screen: false };
  private dominant = '';
  private panel: PanelSeen = { open: null, unread: 0 };
  private readonly knocks = new Set<string>();
  private hands: HandsTold = new Map();
  private queued: { name: string; args: unknown[] }[] = [];
  private name: string;
  private closing = false;
  /** She knocked and waits: her name is the one the moderators see, and it stays so. */
  private waiting = false;
  /** The waiting-room toggle as the server last told this (moderator's) page; null before it did. */
  private waitingRoom: { enabled: boolean; switchable: boolean } | null = null;

  constructor(
    private readonly parentOrigin: string,
    private readonly homeRoomId: string,
    hash: string,
    private readonly devices: Devices,
  ) {
    this.settings = readFragment(hash);
    this.roomName = text(this.settings['embed.roomName']) || homeRoomId;
    this.name = text(this.settings['userInfo.displayName']);
    this.hooks = {
      message: (message) => this.onServer(message),
      localState: (state) => this.onLocal(state),
      leaving: (reason) => this.onLeaving(reason),
      panel: (seen) => this.onPanel(seen),
    };
    window.addEventListener('message', (event) => this.onParent(event));
    this.post({ videomeet: envelope, kind: 'ready' });
  }

  private post(message: object): void {
    // Only to the origin the page was given, which the browser enforces: never "*".
    window.parent.postMessage(message, this.parentOrigin);
  }

  private emit(name: string, data: object): void {
    this.post({ videomeet: envelope, kind: 'event', name, data });
  }

  private tell(event: EmbedEvent): void {
    this.emit(event.name, event.data);
  }

  /**
   * The device check before she enters, as the embedding page set its switch for the pre-join
   * screen (configOverwrite.prejoinConfig.enabled, the older prejoinPageEnabled): shown unless it
   * says false.
   */
  get deviceCheck(): boolean {
    return prejoinShown(this.settings);
  }

  /** Whether `arrive` can go on without the arrival screen (which has the device check of its own). */
  knowsArrival(joinToken: string | null, needsCode: boolean): boolean {
    return (this.name || nameInJoinToken(joinToken)) !== '' && !needsCode;
  }

  /**
   * The arrival without the arrival screen: the name from the embedding page, or the one the
   * gateway put in the join token (the server prefers the token's anyway). Null when the
   * person must still type something (no name known, an access code), or on any refusal,
   * which the arrival screen then explains.
   */
  async arrive(
    roomId: string,
    joinToken: string | null,
    needsCode: boolean,
  ): Promise<{ joined: Joined } | { waiting: string } | null> {
    const name = this.name || nameInJoinToken(joinToken);
    if (!name || needsCode) return null;
    const body = { name, ...(joinToken ? { t: joinToken } : {}) };
    const started = await roomApi.start(roomId, body);
    if (!started.ok) return null;
    if (started.body.status === 'joined') return { joined: started.body };
    // The waiting room: she knocks at once (her name is known); her parent page hears
    // nothing of the meeting until she is admitted.
    const knocked = await roomApi.knock(roomId, { ...body, note: '' });
    if (!knocked.ok) return null;
    if (knocked.body.status === 'joined') return { joined: knocked.body };
    this.waiting = true;
    return { waiting: name };
  }

  /** A meeting view of room `roomId` is on screen (the home room or a sub-group). */
  attach(roomId: string, actions: MeetingActions): void {
    if (this.joined) this.left();
    this.roomId = roomId;
    this.actions = actions;
    this.closing = false;
    this.waiting = false;
    this.waitingRoom = null;
  }

  private left(): void {
    if (!this.joined) return;
    this.joined = false;
    this.emit('videoConferenceLeft', { roomName: this.roomName });
  }

  private onLeaving(reason: LeaveReason): void {
    this.left();
    this.actions = null;
    if (reason === 'lost')
      this.tell(errorOccurred('conference.connectionError', 'The connection to the meeting was lost.', 'CONNECTION'));
    else if (reason !== 'removed') this.emit('readyToClose', {});
  }

  private onLocal(state: LocalState): void {
    const before = this.local;
    this.local = state;
    if (!this.joined) return;
    if (before.audio !== state.audio) this.emit('audioMuteStatusChanged', { muted: !state.audio });
    if (before.video !== state.video) this.emit('videoMuteStatusChanged', { muted: !state.video });
    if (before.screen !== state.screen)
      this.emit('screenSharingStatusChanged', {
        on: state.screen,
        details: state.screen ? { sourceType: 'screen' } : {},
      });
  }

  /** The chat and People as the embedded client tells them (chatUpdated, participantsPaneToggled), once in the meeting. */
  private onPanel(seen: PanelSeen): void {
    const before = this.panel;
    this.panel = seen;
    if (this.joined) for (const event of panelEvents(before, seen)) this.tell(event);
  }

  private onServer(message: ServerMessage): void {
    switch (message.type) {
      case 'welcome': {
        this.participants.clear();
        this.hands = new Map();
        this.selfId = message.self.participant_id;
        for (const p of [message.self, ...message.participants]) this.participants.set(p.participant_id, p);
        this.joined = true;
        if (this.actions) this.local = this.actions.local();
        // Everyone already present first, then her own arrival (issue 33 point 2).
        const room = { roomName: this.roomName, breakoutRoom: this.roomId !== this.homeRoomId };
        for (const event of joinedEvents(message.self, message.participants, room)) this.tell(event);
        // configOverwrite's start muted, as the person would mute at once.
        // Upstream tells the subject of the conference joined, when it has one.
        if (message.subject !== '') this.emit('subjectChange', { subject: message.subject });
        if (this.settings['config.startWithAudioMuted'] === true && this.local.audio) this.actions?.toggleAudio();
        if (this.settings['config.startWithVideoMuted'] === true && this.local.video) this.actions?.toggleVideo();
        const queued = this.queued;
        this.queued = [];
        for (const command of queued) this.command(command.name, command.args);
        break;
      }
      case 'participant_joined':
      case 'state': {
        const p = message.participant;
        const known = this.participants.get(p.participant_id);
        this.participants.set(p.participant_id, p);
        // A rename reaches everyone as `state`, her own page too: upstream tells the local one as well.
        if (known && known.name !== p.name)
          this.emit('displayNameChange', { id: p.participant_id, displayname: p.name });
        if (p.participant_id === this.selfId) {
          this.name = p.name;
          break;
        }
        if (!known && message.type === 'participant_joined') this.tell(participantJoined(p));
        break;
      }
      case 'subject':
        this.emit('subjectChange', { subject: message.subject });
        break;
      case 'hands': {
        const { told, events } = handUpdates(this.hands, message.hands);
        this.hands = told;
        for (const data of events) this.emit('raiseHandUpdated', data);
        break;
      }
      case 'waiting_room':
        this.waitingRoom = { enabled: message.enabled, switchable: message.switchable };
        break;
      case 'error':
        // What the server refused of a command (or of the person's own gesture) is said where the embedding developer looks.
        console.warn(`The meeting refused a request (${message.code}): ${message.message}`);
        break;
      case 'removed': {
        // Upstream's payload, on every page: the removed one's (local: true) and the others'.
        const person = (id: string | null) => ({
          id: id ?? '',
          local: id === this.selfId,
          name: id === null ? '' : (this.participants.get(id)?.name ?? ''),
        });
        this.emit('participantKickedOut', { kicked: person(message.participant_id), kicker: person(message.by) });
        break;
      }
      case 'participant_left':
        if (this.participants.delete(message.participant_id))
          this.emit('participantLeft', { id: message.participant_id });
        break;
      case 'speaking':
        if (message.speaking && message.participant_id !== this.dominant) {
          this.dominant = message.participant_id;
          this.emit('dominantSpeakerChanged', { id: message.participant_id });
        }
        break;
      case 'chat': {
        const { from, text: body } = message.message;
        if (from.system) break;
        if (from.participant_id === this.selfId) this.emit('outgoingMessage', { message: body, privateMessage: false });
        else
          this.emit('incomingMessage', {
            from: from.participant_id,
            nick: from.name,
            privateMessage: false,
            message: body,
          });
        break;
      }
      case 'role': {
        const known = this.participants.get(message.participant_id);
        if (known) this.participants.set(message.participant_id, { ...known, role: message.role });
        this.emit('participantRoleChanged', { id: message.participant_id, role: message.role });
        break;
      }
      case 'waiting_list':
      case 'waiting_changes':
        // Who is new to this page knocks, whether she arrives in the whole list or in a change.
        for (const r of message.type === 'waiting_list' ? message.requests : message.added) {
          if (this.knocks.has(r.request_id)) continue;
          this.knocks.add(r.request_id);
          this.emit('knockingParticipant', { participant: { id: r.request_id, name: r.name } });
        }
        break;
      default:
        break;
    }
  }

  private onParent(event: MessageEvent): void {
    // Only the page that framed us, from the origin it was given.
    if (event.source !== window.parent || event.origin !== this.parentOrigin) return;
    const data: unknown = event.data;
    if (typeof data !== 'object' || data === null) return;
    const m = data as { videomeet?: unknown; kind?: unknown; name?: unknown; args?: unknown; id?: unknown };
    if (m.videomeet !== envelope || typeof m.name !== 'string') return;
    const args = Array.isArray(m.args) ? (m.args as unknown[]) : [];
    if (m.kind === 'command') this.command(m.name, args);
    else if (m.kind === 'request' && typeof m.id === 'number' && Number.isSafeInteger(m.id)) {
      const id = m.id;
      if (deviceRequests.includes(m.name)) {
        void answerDevices(m.name, args, this.devices).then((result) =>
          this.post({ videomeet: envelope, kind: 'response', id, result }),
        );
        return;
      }
      const answer = answerRequest(m.name, args, {
        participants: this.participants,
        selfId: this.selfId,
        joined: this.joined,
        roomId: this.roomId,
        homeRoomId: this.homeRoomId,
        local: this.local,
        peopleOpen: this.panel.open === 'people',
      });
      this.post({ videomeet: envelope, kind: 'response', id: m.id, ...answer });
    }
  }

  private command(name: string, args: unknown[]): void {
    const actions = this.actions;
    // Before the meeting is on screen, its commands wait for it; leaving and naming do not.
    const needsMeeting = [
      'toggleAudio',
      'toggleVideo',
      'toggleShareScreen',
      'sendChatMessage',
      'subject',
      'toggleLobby',
      'answerKnockingParticipant',
      'kickParticipant',
      ...classroomCommandNames,
    ];
    if ((!actions || !this.joined) && needsMeeting.includes(name)) {
      if (this.queued.length < 50) this.queued.push({ name, args });
      return;
    }
    const unmuted = [...this.participants.values()].filter((p) => p.audio).map((p) => p.participant_id);
    const tell = (event: string, data: object) => this.emit(event, data);
    if (actions && classroomCommand(name, args, actions, this.selfId, { unmuted, tell })) return;
    switch (name) {
      case 'toggleAudio':
        return actions!.toggleAudio();
      case 'toggleVideo':
        return actions!.toggleVideo();
      case 'toggleShareScreen':
        return actions!.toggleScreen();
      case 'hangup':
        if (actions) return actions.leave();
        // Still waiting (or on the arrival screen): her request is withdrawn, and she is done.
        if (!this.closing) {
          this.closing = true;
          void roomApi.withdraw(this.homeRoomId).finally(() => this.emit('readyToClose', {}));
        }
        return;
      case 'sendChatMessage': {
        const body = text(args[0]);
        if (text(args[1]) !== '')
          return console.warn('sendChatMessage: private messages are not supported here; nothing was sent.');
        if (body === '' || body.length > maxChatLength)
          return console.warn(
            `sendChatMessage: the message must hold 1 to ${maxChatLength} characters; nothing was sent.`,
          );
        return actions!.sendChat(body);
      }
      case 'setDisplayName':
      case 'displayName': {
        const next = text(Array.isArray(args[0]) ? args[0][0] : args[0]);
        if (next === '' || [...next].length > maxNameLength)
          return console.warn(`${name}: a name must hold 1 to ${maxNameLength} characters; nothing was changed.`);
        // Waiting, she is known by the name she knocked with until a moderator answers.
        if (this.waiting)
          return console.warn(`${name}: the name cannot change while waiting to be admitted; nothing was changed.`);
        // Before the meeting it is the name she joins with; during it, a rename the server checks and tells everyone.
        if (!actions) {
          this.name = next;
          return;
        }
        // The meeting is on screen but not joined yet: the rename waits for the welcome.
        if (!this.joined) {
          if (this.queued.length < 50) this.queued.push({ name, args: [next] });
          return;
        }
        actions.rename(next);
        return;
      }
      case 'subject': {
        if (!actions!.isModerator())
          return console.warn('subject: only a moderator can set the subject; nothing was sent.');
        const subject = text(args[0]);
        if ([...subject].length > maxSubjectLength)
          return console.warn(`subject: a subject holds at most ${maxSubjectLength} characters; nothing was sent.`);
        return actions!.setSubject(subject);
      }
      case 'toggleLobby': {
        if (typeof args[0] !== 'boolean') return console.warn('toggleLobby: pass true or false; nothing was sent.');
        if (!actions!.isModerator())
          return console.warn('toggleLobby: only a moderator can turn the waiting room on or off; nothing was sent.');
        if (this.waitingRoom && !this.waitingRoom.switchable) {
          return console.warn(
            'toggleLobby: the waiting room of this meeting cannot be switched here (the room has none, or the service always uses it); nothing was sent.',
          );
        }
        return actions!.setWaitingRoom(args[0]);
      }
      case 'kickParticipant': {
        const id = text(args[0]);
        if (id === '') return console.warn('kickParticipant: pass the participant id to remove; nothing was sent.');
        if (!actions!.isModerator())
          return console.warn('kickParticipant: only a moderator can remove someone; nothing was sent.');
        if (id === this.selfId)
          return console.warn('kickParticipant: a moderator cannot remove herself (hangup leaves); nothing was sent.');
        return actions!.remove(id);
      }
      case 'answerKnockingParticipant': {
        const id = text(args[0]);
        if (id === '') return;
        const session = actions!.session();
        return void this.moderate(() =>
          args[1] === true ? roomApi.admit(this.roomId, session, id) : roomApi.refuse(this.roomId, session, id, false),
        );
      }
      default:
        return console.warn(`"${name}" is not a supported command; nothing was done.`);
    }
  }

  /** A moderator's gesture: the server checks the session's role, as for her own clicks. */
  private async moderate(call: () => Promise<{ ok: boolean }>): Promise<void> {
    if (!this.actions?.isModerator()) return console.warn('Only a moderator can answer the waiting room.');
    const result = await call();
    if (!result.ok) console.warn('The waiting room did not accept that answer.');
  }
}

/** The bridge when the page was opened with `embed=1` inside a frame and told its parent's origin. */
export function embedBridge(homeRoomId: string, devices: Devices): EmbedBridge | null {
  if (new URLSearchParams(location.search).get('embed') !== '1' || window.parent === window) return null;
  const parentOrigin = readFragment(location.hash)['embed.parentOrigin'];
  if (typeof parentOrigin !== 'string') return null;
  let origin: string;
  try {
    origin = new URL(parentOrigin).origin;
  } catch {
    return null;
  }
  // The origin the fragment names must be the page that actually frames us, where the browser says.
  const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  if (origin === 'null' || (ancestors && ancestors.length > 0 && ancestors[0] !== origin)) return null;
  return new EmbedBridge(origin, homeRoomId, location.hash, devices);
}
