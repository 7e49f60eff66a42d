import { closeCodes, type ClientMessage, type ServerMessage } from '../protocol/live.js';
import { announce } from './announce.js';
import { roomApi } from './api.js';
import { ChatBox } from './chat.js';
import { ClassroomView } from './classroom.js';
import type { Devices } from './devices.js';
import type { LeaveReason, MeetingActions, MeetingHooks } from './meeting-hooks.js';
import { meetingTools } from './meeting-tools.js';
import { el } from './dom.js';
import { rememberIceServers } from './ice.js';
import { connectionBanner } from './connection-banner.js';
import { LiveLink } from './live-link.js';
import type { Mesh } from './mesh.js';
import { pageMedia, type Sfu } from './sfu.js';
import { inviteControl } from './invite.js';
import { clockTime, groupLabel, GroupsBar } from './groups.js';
import { ModerationTools } from './moderation.js';
import { WaitingPanel } from './moderator.js';
import { PeopleList } from './people.js';
import { comeBackWhenUp, endOf } from './removal.js';
import { SidePanel } from './side-panel.js';
import { Signals } from './signals.js';
import { Stage } from './stage.js';
import { chooseTiles } from './stage-layout.js';
import {
  anyoneSharing,
  groupOf,
  hideGroupMessage,
  isModerator as moderatorIn,
  mayAudio as audioAllowed,
  mayVideo as videoAllowed,
  meetingWith,
  receive,
  shareScreen,
  toggleAudio as audioToggled,
  toggleVideo as videoToggled,
  type MeetingEffect,
  type MeetingState,
  type Said,
  type Step,
} from './state/meeting.js';
import { fill, words } from './words/index.js';

const said = words.meeting;

export interface MeetingOptions {
  readonly roomId: string;
  readonly session: string;
  readonly devices: Devices;
  /** Sessions of rooms of this meeting family, to come back from a sub-group. */
  readonly sessions: Map<string, string>;
  /** The room the page was opened for: its session is the key to every sub-group. */
  readonly homeRoomId: string;
  /** Called to switch to another room (sub-group or back). */
  readonly switchTo: (roomId: string, session: string) => void;
  /** The meeting view is gone: what to tell her, and why (an embedding page hears the same reason). */
  readonly left: (message: string, reason: LeaveReason) => void;
  /** Told what happens, for an embedding page (embed-bridge.ts). */
  readonly hooks?: MeetingHooks | undefined;
}

const speakingThreshold = 0.08;

/** The sentence for what the reducer says. */
function sentence(s: Said): string {
  switch (s.key) {
    case 'joined':
    case 'left':
    case 'removed':
    case 'mutedBy':
      return fill(said[s.key], { name: s.name });
    case 'renamed':
    case 'yourNameNow':
      return fill(said[s.key], { before: s.before, name: s.name });
    case 'subjectIs':
      return fill(said.subjectIs, { subject: s.subject });
    case 'groupsEndAt':
      return fill(said.groupsEndAt, { time: clockTime(s.endsAt) });
    case 'groupMessage':
      return fill(said.groupMessage, { name: s.name, text: s.text });
    case 'liveError':
      return words.liveErrors[s.code];
    default:
      return said[s.key];
  }
}
/** Wide enough for the stage and the panel side by side: the panel starts open there, closed on a phone. */
const panelOpenQuery = '(min-width: 64rem)';

/** The meeting: the stage of video tiles, the bottom toolbar, and the side panel (people, chat, moderation). */
export function meetingView(options: MeetingOptions): {
  element: HTMLElement;
  close: () => void;
  actions: MeetingActions;
} {
  const { roomId, devices } = options;
  const session = options.session;
  /** The meeting as the page knows it (state/meeting.ts); the view below draws it and does its effects. */
  // Her devices as her tracks are: a muted pupil moved to a sub-group (a new view) stays muted.
  let state: MeetingState = meetingWith({ audio: devices.live('audio'), video: devices.live('video') });
  /** Her shared screen's track, while state.screen. */
  let screen: MediaStreamTrack | null = null;
  let closed = false;

  const socketUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/room/${encodeURIComponent(roomId)}/live?session=${encodeURIComponent(session)}`;
  const connection = connectionBanner();
  const link = new LiveLink({
    url: socketUrl,
    onMessage: (message) => received(message),
    onStatus: (status) => connection.show(status),
    onEnd: (code) => ended(code),
    probe: () => publishState(),
  });
  const send = (message: ClientMessage) => link.send(JSON.stringify(message));
  const isModerator = () => moderatorIn(state);

  const stage = new Stage(() => state.self?.participant_id, devices.outgoing, send);
  const chat = new ChatBox((text) => send({ type: 'chat', text }));
  const moderation = new ModerationTools(send, roomId);
  const classroom = new ClassroomView(send, stage, () => state);
  const groupsBar = new GroupsBar(
    roomId,
    () => state.self && send({ type: 'move', participant_id: state.self.participant_id, room_id: options.homeRoomId }),
    () => apply(hideGroupMessage(state)),
  );
  const people = new PeopleList({
    participants: () => state.participants,
    self: () => state.self,
    isModerator,
    groups: () => state.groups,
    send,
    controlsFor: (p) => classroom.controlsFor(p),
    above: classroom.handsSection,
  });
  const waiting = new WaitingPanel(
    roomId,
    () => session,
    (enabled) => send({ type: 'waiting_room', enabled }),
    () => send({ type: 'waiting_resync' }),
    () => panel.open('people'),
  );
  // On top of People for moderators: Copy invite link, then the Waiting section.
  const moderatorTop = el(
    'div',
    { class: 'moderator-top' },
    inviteControl(roomId, () => session),
    waiting.section,
  );
  const modTab = el('div', {}, moderation.element, classroom.endSection);
  const panel = new SidePanel({ people: people.element, chat: chat.element, moderation: modTab });
  /** The meeting's media path, chosen by the welcome (mesh or the server's SFU) and made again with each welcome. */
  let media: Mesh | Sfu | null = null;

  const title = el('h1', { class: 'meeting-title', text: words.page.meeting });
  const lockNotice = el('p', { class: 'hint lock-notice', hidden: true });

  const toolbar = meetingTools({
    devices,
    panel,
    classroomShortcut: classroom.shortcut,
    toggleAudio: () => toggleAudio(),
    toggleVideo: () => toggleVideo(),
    toggleScreen: () => void toggleScreen(),
    leave: () => void leave(),
  });
  const { panelTools, deviceSettings, help, stopShortcuts, drawTools, allowTools } = toolbar;
  const signals = new Signals(stage, panelTools.chat, {
    connections: () => media?.connections() ?? [],
    me: () => ({ id: state.self?.participant_id, micOn: state.audio, level: devices.level() }),
    chatShown: () => panel.isOpen && panel.tab === 'chat',
    unreadChanged: () => tellPanel(),
  });
  /** The embedding page's bridge hears of the panel and the chat's unread count. */
  const tellPanel = () => options.hooks?.panel({ open: panel.isOpen ? panel.tab : null, unread: signals.unreadCount });

  panel.onChange(() => {
    for (const [name, t] of Object.entries(panelTools))
      t.button.setAttribute('aria-pressed', String(panel.isOpen && panel.tab === name));
    element.classList.toggle('panel-open', panel.isOpen);
    if (panel.isOpen && panel.tab === 'chat') chat.input.focus({ preventScroll: true });
    signals.panelChanged();
    tellPanel();
  });

  /** One step of the reducer: the new state drawn where it changed, then its effects done in order. */
  function apply(step: Step, message?: ServerMessage): void {
    const before = state;
    state = step.state;
    draw(before, message?.type === 'welcome');
    for (const effect of step.effects) perform(effect, message);
  }

  /** Draws what changed between two states (all of it on a welcome). */
  function draw(before: MeetingState, welcomed: boolean): void {
    const { self, locks, groups } = state;
    classroom.draw(state, before);
    drawTools(state, before, welcomed);
    if (welcomed || state.audio !== before.audio || state.video !== before.video) sendTracks();
    if (welcomed || state.subject !== before.subject || groups !== before.groups) {
      // The room's (or group's) name, or the subject a moderator set (an embedding app's meeting title). Text, never markup.
      const group = groupOf(state, roomId);
      const name = (group && groupLabel(group)) || state.roomName || words.page.meeting;
      title.textContent = state.subject || name;
      document.title = state.subject ? fill(words.page.subjectTitle, { subject: state.subject }) : name;
      moderation.subject(state.subject);
    }
    const roleChanged = self?.role !== before.self?.role;
    if (welcomed || roleChanged || locks !== before.locks) {
      const audio = audioAllowed(state);
      const video = videoAllowed(state);
      allowTools(audio, video);
      const notes = [!audio ? said.micLocked : '', !video ? said.cameraLocked : ''].filter(Boolean);
      lockNotice.textContent = notes.join(' ');
      lockNotice.hidden = notes.length === 0;
      media?.setAllowed(audio, video);
    }
    // What only moderators see: the Waiting section on top of People, and the Moderation tab.
    if (welcomed || roleChanged) {
      people.setWaiting(isModerator() ? moderatorTop : null);
      panelTools.moderation.button.hidden = !isModerator();
      panel.setAvailable('moderation', isModerator());
    }
    const groupsChanged = groups !== before.groups || state.groupsEndAt !== before.groupsEndAt;
    if (welcomed || roleChanged || groupsChanged || state.groupMessage !== before.groupMessage) groupsBar.render(state);
    const whole = welcomed || roleChanged || locks !== before.locks;
    if (whole || groupsChanged || state.participants !== before.participants) moderation.render(state, whole);
    if (welcomed || state.participants !== before.participants || self !== before.self || groups !== before.groups) {
      people.render();
      waiting.setSharing(anyoneSharing(state));
    }
  }

  function perform(effect: MeetingEffect, message: ServerMessage | undefined): void {
    switch (effect.do) {
      case 'forget':
        // Back after a lost connection: the welcome is the whole state again, and media starts afresh with everyone.
        return forgetConnection(effect.tiles);
      case 'media':
        media = pageMedia(
          effect.media,
          {
            send: (to, data) => send({ type: 'signal', to, data }),
            onStream: (id, stream) => devices.playThrough(stage.attach(id, stream)),
            restarted: announce,
          },
          devices.outgoing,
        );
        media.setSelf(effect.self);
        media.setAllowed(effect.audio, effect.video);
        sendTracks();
        media.join(effect.peers);
        return;
      case 'tile':
        stage.show(effect.participant);
        return classroom.tile(effect.participant.participant_id);
      case 'hands':
      case 'reaction':
      case 'mutedBy':
        return classroom.perform(effect);
      case 'untile':
        stage.remove(effect.participant_id);
        return media?.remove(effect.participant_id);
      case 'chat':
        // Unread: a message as it is sent, not the history a welcome brings.
        if (message?.type === 'chat') signals.chatArrived(effect.message, state.self?.participant_id);
        return chat.show(effect.message);
      case 'speaking':
        return stage.speaking(effect.participant_id, effect.speaking);
      case 'signal':
        return void media?.handle(effect.from, effect.data).catch(() => {});
      case 'ice':
        return rememberIceServers(effect.servers);
      case 'move':
        return void move(effect.room_id);
      case 'waiting':
        return waiting.receive(effect.message);
      case 'renamed':
        if (people.renaming) people.closeRename();
        return;
      case 'renameRefused':
        if (people.renaming) people.refused(effect.why === 'name' ? null : words.liveErrors.rate_limited);
        return;
      case 'publish':
        return publishState();
      case 'announce':
        return announce(sentence(effect.said));
      case 'end':
        if (effect.reason === 'removed') {
          if (message) options.hooks?.message(message);
          return ended(closeCodes.removed);
        }
        close();
        options.left(said.ended, 'ended');
        return options.hooks?.leaving('ended');
    }
  }

  function publishState(): void {
    send({ type: 'state', audio: state.audio, video: state.video, screen: state.screen });
    options.hooks?.localState({ audio: state.audio, video: state.video, screen: state.screen });
  }

  /** Her tracks follow her buttons: not a byte of a muted microphone or an off camera leaves the page. */
  const sendTracks = () => media?.send(devices.sending(state.audio, state.video, screen));

  const toggleAudio = () => apply(audioToggled(state));
  const toggleVideo = () => apply(videoToggled(state));

  async function toggleScreen(): Promise<void> {
    if (screen) {
      screen.stop();
      screen = null;
      sendTracks();
    } else {
      try {
        const display = await navigator.mediaDevices.getDisplayMedia({ video: true });
        screen = display.getVideoTracks()[0] ?? null;
        if (!screen) return;
        screen.addEventListener('ended', () => void (screen && toggleScreen()));
        sendTracks();
      } catch {
        announce(said.shareNotStarted);
        return;
      }
    }
    apply(shareScreen(state, screen !== null));
  }

  // Speaking activity from the microphone level, sent on change only.
  let speaking = false;
  const speakingTimer = window.setInterval(() => {
    const now = state.audio && devices.level() > speakingThreshold;
    if (now !== speaking) {
      speaking = now;
      send({ type: 'speaking', speaking });
    }
  }, 250);

  async function move(target: string): Promise<void> {
    const known = options.sessions.get(target);
    if (known) return options.switchTo(target, known);
    const home = options.sessions.get(options.homeRoomId) ?? session;
    const result = await roomApi.start(target, { name: state.self?.name ?? '' }, home);
    if (result.ok && result.body.status === 'joined') {
      options.sessions.set(target, result.body.session);
      options.switchTo(target, result.body.session);
    } else {
      announce(said.moveFailed);
    }
  }

  function received(message: ServerMessage): void {
    const step = receive(state, message);
    apply(step, message);
    // Her own removal told the embedding page before it ended the view.
    if (!step.effects.some((e) => e.do === 'end' && e.reason === 'removed')) options.hooks?.message(message);
  }

  /** What the previous connection built: tiles, peers, the people list and the chat come again with the new welcome. */
  function forgetConnection(tiles: readonly string[]): void {
    media?.close();
    media = null;
    for (const id of tiles) stage.remove(id);
    chat.clear();
  }

  function ended(code: number): void {
    if (closed) return;
    close();
    const end = endOf(code);
    options.left(end.text, end.reason);
    options.hooks?.leaving(end.reason);
    if (code === closeCodes.restarting) comeBackWhenUp();
  }

  async function leave(): Promise<void> {
    close();
    await roomApi.leave(roomId, session);
    options.left(said.youLeft, 'hangup');
    options.hooks?.leaving('hangup');
  }

  function close(): void {
    if (closed) return;
    closed = true;
    window.clearInterval(speakingTimer);
    signals.close();
    stopFollowingDevices();
    stopShortcuts();
    help.dialog.close();
    deviceSettings.dialog.close();
    classroom.close();
    media?.close();
    screen?.stop();
    link.close();
  }

  // A device or background changed: the new tracks take her state and go to every peer.
  const stopFollowingDevices = devices.onChange(() => sendTracks());

  const element = el(
    'div',
    { class: 'meeting' },
    el(
      'section',
      { class: 'stage', 'aria-label': said.stage },
      el('header', { class: 'stage-head' }, title, signals.quality, lockNotice, classroom.mutedNote),
      groupsBar.element,
      connection.element,
      waiting.notification,
      stage.element,
      classroom.menu,
      stage.controls,
      signals.mutedNotice,
    ),
    panel.element,
    toolbar.element(classroom.tools),
    help.dialog,
    deviceSettings.dialog,
  );
  if (window.matchMedia(panelOpenQuery).matches) panel.open('people');
  // What an embedding page may ask for: the person's own buttons (a disabled one, such as a
  // locked microphone, does nothing), her chat, and her session for the moderator gestures.
  const actions: MeetingActions = {
    toggleAudio: () => toolbar.mic.button.click(),
    toggleVideo: () => toolbar.cam.button.click(),
    toggleScreen: () => toolbar.share.button.click(),
    leave: () => toolbar.leaveTool.button.click(),
    sendChat: (text) => send({ type: 'chat', text }),
    rename: (name) => people.rename(name),
    setSubject: (text) => send({ type: 'subject', subject: text }),
    setWaitingRoom: (enabled) => send({ type: 'waiting_room', enabled }),
    remove: (participantId) => send({ type: 'remove', participant_id: participantId }),
    toggleHand: () => classroom.shortcut.run(),
    endMeeting: () => send({ type: 'end_meeting' }),
    mute: (participantId) => send({ type: 'mute', participant_id: participantId }),
    toggleChat: () => panel.toggle('chat'),
    toggleParticipantsPane: (open) => panel.setShown('people', open),
    setTileView: (tiles) => chooseTiles(stage.controls, tiles),
    local: () => ({ audio: state.audio, video: state.video, screen: state.screen }),
    session: () => session,
    isModerator,
  };
  return { element, close, actions };
}
