import { closeCodes, type ClientMessage, type Locks, type ParticipantView, type ServerMessage } from '../protocol/live.js';
import { mayAudio as lockAllowsAudio, mayVideo as lockAllowsVideo } from '../protocol/locks.js';
import { announce } from './announce.js';
import { roomApi } from './api.js';
import { ChatBox } from './chat.js';
import type { Devices } from './devices.js';
import type { LeaveReason, MeetingActions, MeetingHooks } from './embed-bridge.js';
import { el } from './dom.js';
import { rememberIceServers } from './ice.js';
import { connectionBanner } from './connection-banner.js';
import { LiveLink } from './live-link.js';
import type { Mesh } from './mesh.js';
import { pageMedia, type Sfu } from './sfu.js';
import { ModerationTools } from './moderation.js';
import { WaitingPanel } from './moderator.js';
import { PeopleList } from './people.js';
import { comeBackWhenUp, endOf, heardRemoval } from './removal.js';
import { SidePanel, type PanelTab } from './side-panel.js';
import { Stage } from './stage.js';
import { listenForShortcuts, shortcutsDialog, tool, type ShortcutEntry } from './toolbar.js';
import { fill, words } from './words/index.js';

const said = words.meeting;
const tools = words.toolbar;

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
/** Wide enough for the stage and the panel side by side: the panel starts open there, closed on a phone. */
const panelOpenQuery = '(min-width: 64rem)';

/** The meeting: the stage of video tiles, the bottom toolbar, and the side panel (people, chat, moderation). */
export function meetingView(options: MeetingOptions): { element: HTMLElement; close: () => void; actions: MeetingActions } {
  const { roomId, devices } = options;
  const session = options.session;
  let self: ParticipantView | null = null;
  let locks: Locks = { mic: false, cam: false, cams_moderators_only: false };
  const participants = new Map<string, ParticipantView>();
  let audioOn = true;
  let videoOn = true;
  let screen: MediaStreamTrack | null = null;
  let closed = false;
  let subgroups: string[] = [];
  /** The room's name, from the welcome (the socket opens only once she is admitted). */
  let roomName = '';

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
  const isModerator = () => self?.role === 'moderator';
  const mayAudio = () => lockAllowsAudio(self?.role ?? 'participant', locks);
  const mayVideo = () => lockAllowsVideo(self?.role ?? 'participant', locks);

  const stage = new Stage(() => self?.participant_id, devices.outgoing, send);
  const chat = new ChatBox((text) => send({ type: 'chat', text }));
  const moderation = new ModerationTools(send);
  const people = new PeopleList({ participants, self: () => self, isModerator, subgroups: () => subgroups, send });
  const waiting = new WaitingPanel(
    roomId,
    () => session,
    (enabled) => send({ type: 'waiting_room', enabled }),
    () => panel.open('people'),
  );
  const panel = new SidePanel({ people: people.element, chat: chat.element, moderation: moderation.element });
  /** The meeting's media path, chosen by the welcome (mesh or the server's SFU) and made again with each welcome. */
  let media: Mesh | Sfu | null = null;

  const title = el('h1', { class: 'meeting-title', text: words.page.meeting });
  const lockNotice = el('p', { class: 'hint lock-notice', hidden: true });

  const mic = tool(tools.mute, 'mic', 'M', () => toggleAudio(), { class: 'tool media', 'aria-pressed': 'false' });
  const cam = tool(tools.cameraOff, 'camera', 'V', () => toggleVideo(), { class: 'tool media', 'aria-pressed': 'false' });
  const share = tool(tools.share, 'share', 'S', () => void toggleScreen(), { 'aria-pressed': 'false' });
  const panelTools: Record<PanelTab, ReturnType<typeof tool>> = {
    people: tool(tools.people, 'people', 'P', () => panel.toggle('people'), { 'aria-pressed': 'false' }),
    chat: tool(tools.chat, 'chat', 'C', () => panel.toggle('chat'), { 'aria-pressed': 'false' }),
    moderation: tool(tools.moderation, 'moderation', 'O', () => panel.toggle('moderation'), { 'aria-pressed': 'false', hidden: 'hidden' }),
  };
  panel.focusOnClose = (tab) => panelTools[tab].button.focus();
  const leaveTool = tool(tools.leave, 'leave', 'L', () => void leave(), { class: 'tool leave' });
  const shortcuts: ShortcutEntry[] = [
    { what: words.help.mute, key: 'M', run: () => mic.button.click() },
    { what: words.help.camera, key: 'V', run: () => cam.button.click() },
    { what: words.help.share, key: 'S', run: () => share.button.click() },
    { what: words.help.people, key: 'P', run: () => panelTools.people.button.click() },
    { what: words.help.chat, key: 'C', run: () => panelTools.chat.button.click() },
    { what: words.help.moderation, key: 'O', run: () => panelTools.moderation.button.click() },
    { what: words.help.leave, key: 'L', run: () => leaveTool.button.click() },
    { what: words.help.shortcuts, key: '/', run: () => help.open() },
  ];
  const help = shortcutsDialog(shortcuts);
  const helpTool = tool(tools.shortcuts, 'keyboard', '/', () => help.open(), { class: 'tool help-tool' });
  const stopShortcuts = listenForShortcuts(shortcuts);

  panel.onChange(() => {
    for (const [name, t] of Object.entries(panelTools)) t.button.setAttribute('aria-pressed', String(panel.isOpen && panel.tab === name));
    element.classList.toggle('panel-open', panel.isOpen);
    if (panel.isOpen && panel.tab === 'chat') chat.input.focus({ preventScroll: true });
  });

  function renderPeople(): void {
    people.render();
    waiting.setSharing([...participants.values()].some((p) => p.screen));
  }

  /** What only moderators see: the Waiting section on top of People, and the Moderation tab. */
  function renderRole(): void {
    people.setWaiting(isModerator() ? waiting.section : null);
    panelTools.moderation.button.hidden = !isModerator();
    panel.setAvailable('moderation', isModerator());
    moderation.render(isModerator(), locks, subgroups);
  }

  /**
   * The page's heading and title: the room's name, or the subject a moderator set (an embedding
   * app's meeting title). Text, never markup.
   */
  function showSubject(next: string, announced: boolean): void {
    title.textContent = next || roomName || words.page.meeting;
    document.title = next ? fill(words.page.subjectTitle, { subject: next }) : roomName || words.page.meeting;
    moderation.subject(next);
    if (announced) announce(next ? fill(said.subjectIs, { subject: next }) : said.subjectRemoved);
  }

  function applyLocks(): void {
    if (!mayAudio() && audioOn) setAudio(false);
    if (!mayVideo() && videoOn) setVideo(false);
    mic.button.disabled = !mayAudio();
    cam.button.disabled = !mayVideo();
    const notes = [!mayAudio() ? said.micLocked : '', !mayVideo() ? said.cameraLocked : ''].filter(Boolean);
    lockNotice.textContent = notes.join(' ');
    lockNotice.hidden = notes.length === 0;
    media?.setAllowed(mayAudio(), mayVideo());
  }

  function publishState(): void {
    send({ type: 'state', audio: audioOn, video: videoOn, screen: screen !== null });
    options.hooks?.localState({ audio: audioOn, video: videoOn, screen: screen !== null });
  }

  function setAudio(on: boolean): void {
    audioOn = on;
    devices.outgoing.getAudioTracks().forEach((t) => (t.enabled = on));
    mic.set(on ? tools.mute : tools.unmute, on ? 'mic' : 'micOff');
    mic.button.setAttribute('aria-pressed', String(!on));
    publishState();
  }

  function setVideo(on: boolean): void {
    videoOn = on;
    devices.outgoing.getVideoTracks().forEach((t) => (t.enabled = on));
    cam.set(on ? tools.cameraOff : tools.cameraOn, on ? 'camera' : 'cameraOff');
    cam.button.setAttribute('aria-pressed', String(!on));
    publishState();
  }

  const toggleAudio = () => {
    setAudio(!audioOn);
    announce(audioOn ? said.micOn : said.micMuted);
  };
  const toggleVideo = () => {
    setVideo(!videoOn);
    announce(videoOn ? said.cameraOn : said.cameraOff);
  };

  async function toggleScreen(): Promise<void> {
    if (screen) {
      screen.stop();
      screen = null;
      media?.replaceVideo(devices.outgoing.getVideoTracks()[0] ?? null);
    } else {
      try {
        const display = await navigator.mediaDevices.getDisplayMedia({ video: true });
        screen = display.getVideoTracks()[0] ?? null;
        if (!screen) return;
        screen.addEventListener('ended', () => void (screen && toggleScreen()));
        media?.replaceVideo(screen);
      } catch {
        announce(said.shareNotStarted);
        return;
      }
    }
    share.set(screen ? tools.stopSharing : tools.share, screen ? 'shareOff' : 'share');
    share.button.setAttribute('aria-pressed', String(screen !== null));
    announce(screen ? said.sharing : said.shareStopped);
    publishState();
  }

  // Speaking activity from the microphone level, sent on change only.
  let speaking = false;
  const speakingTimer = window.setInterval(() => {
    const now = audioOn && devices.level() > speakingThreshold;
    if (now !== speaking) {
      speaking = now;
      send({ type: 'speaking', speaking });
    }
  }, 250);

  async function move(target: string): Promise<void> {
    const known = options.sessions.get(target);
    if (known) return options.switchTo(target, known);
    const home = options.sessions.get(options.homeRoomId) ?? session;
    const result = await roomApi.start(target, { name: self?.name ?? '' }, home);
    if (result.ok && result.body.status === 'joined') {
      options.sessions.set(target, result.body.session);
      options.switchTo(target, result.body.session);
    } else {
      announce(said.moveFailed);
    }
  }

  function received(message: ServerMessage): void {
    switch (message.type) {
      case 'welcome': {
        // Back after a lost connection: the welcome is the whole state again, and media starts afresh with everyone.
        if (self) forgetConnection();
        self = message.self;
        roomName = message.room_name;
        locks = message.locks;
        subgroups = [...message.subgroups];
        media = pageMedia(
          message.media,
          { send: (to, data) => send({ type: 'signal', to, data }), onStream: (id, stream) => stage.attach(id, stream), restarted: announce },
          devices.outgoing,
        );
        media.setSelf(self.participant_id);
        for (const p of [self, ...message.participants]) participants.set(p.participant_id, p);
        for (const p of participants.values()) stage.show(p);
        for (const m of message.chat) chat.show(m);
        showSubject(message.subject, false);
        applyLocks();
        if (message.mute_on_start && audioOn) setAudio(false);
        media.setAllowed(mayAudio(), mayVideo());
        media.join(message.participants.map((p) => p.participant_id).filter((id) => id !== self?.participant_id));
        if (screen) media.replaceVideo(screen);
        renderRole();
        renderPeople();
        publishState();
        announce(said.welcome);
        break;
      }
      case 'participant_joined':
        participants.set(message.participant.participant_id, message.participant);
        stage.show(message.participant);
        renderPeople();
        announce(fill(said.joined, { name: message.participant.name }));
        break;
      case 'participant_left': {
        const gone = participants.get(message.participant_id);
        participants.delete(message.participant_id);
        stage.remove(message.participant_id);
        media?.remove(message.participant_id);
        renderPeople();
        if (gone) announce(fill(said.left, { name: gone.name }));
        break;
      }
      case 'state': {
        const before = participants.get(message.participant.participant_id);
        participants.set(message.participant.participant_id, message.participant);
        const mine = message.participant.participant_id === self?.participant_id;
        if (mine && self) self = { ...self, name: message.participant.name };
        if (before && before.name !== message.participant.name) {
          if (mine && people.renaming) people.closeRename();
          announce(fill(mine ? said.yourNameNow : said.renamed, { before: before.name, name: message.participant.name }));
        }
        stage.show(message.participant);
        renderPeople();
        break;
      }
      case 'subject':
        showSubject(message.subject, true);
        break;
      case 'waiting_room':
        waiting.setSwitch(message.enabled, message.switchable);
        break;
      case 'speaking':
        stage.speaking(message.participant_id, message.speaking);
        break;
      case 'chat':
        chat.show(message.message);
        break;
      case 'waiting_list':
        waiting.replace(message.requests, message.seq);
        break;
      case 'waiting_changes':
        if (waiting.apply(message) === 'gap') send({ type: 'waiting_resync' });
        break;
      case 'locks':
        locks = message.locks;
        applyLocks();
        moderation.render(isModerator(), locks, subgroups);
        announce(said.locksChanged);
        break;
      case 'role': {
        const known = participants.get(message.participant_id);
        if (known) {
          participants.set(message.participant_id, { ...known, role: message.role });
          stage.show(participants.get(message.participant_id)!);
        }
        if (self && message.participant_id === self.participant_id && self.role !== message.role) {
          self = { ...self, role: message.role };
          // As welcome does for a moderator: the waiting section and tools, and locks no longer bind her.
          renderRole();
          applyLocks();
          if (isModerator()) announce(said.nowModerator);
        }
        renderPeople();
        break;
      }
      case 'signal':
        void media?.handle(message.from, message.data).catch(() => {});
        break;
      case 'ice_servers':
        rememberIceServers(message.ice_servers);
        break;
      case 'subgroups':
        subgroups = [...message.subgroups];
        moderation.render(isModerator(), locks, subgroups);
        renderPeople();
        break;
      case 'move':
        void move(message.room_id);
        break;
      case 'removed':
        if (!heardRemoval(message, self?.participant_id, participants)) break;
        options.hooks?.message(message);
        return ended(closeCodes.removed);
      case 'ended':
        close();
        options.left(said.ended, 'ended');
        options.hooks?.leaving('ended');
        break;
      case 'error':
        // A refused name is said where it was typed, in the page's plain words.
        if (people.renaming && message.code === 'invalid_field' && message.message.startsWith('name')) people.refused(null);
        else if (people.renaming && message.code === 'rate_limited') people.refused(words.liveErrors.rate_limited);
        announce(words.liveErrors[message.code]);
        break;
    }
    options.hooks?.message(message);
  }

  /** What the previous connection built: tiles, peers, the people list and the chat come again with the new welcome. */
  function forgetConnection(): void {
    media?.close();
    media = null;
    for (const id of participants.keys()) stage.remove(id);
    participants.clear();
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
    stopShortcuts();
    help.dialog.close();
    media?.close();
    screen?.stop();
    link.close();
  }

  devices.onChange(() => {
    if (!screen) media?.replaceVideo(devices.outgoing.getVideoTracks()[0] ?? null);
  });

  const element = el(
    'div',
    { class: 'meeting' },
    el(
      'section',
      { class: 'stage', 'aria-label': said.stage },
      el('header', { class: 'stage-head' }, title, lockNotice),
      connection.element,
      waiting.notification,
      stage.element,
      stage.controls,
    ),
    panel.element,
    el(
      'div',
      { class: 'toolbar', role: 'toolbar', 'aria-label': tools.label },
      el('div', { class: 'tool-group' }, mic.button, cam.button, share.button),
      el('div', { class: 'tool-group' }, panelTools.people.button, panelTools.chat.button, panelTools.moderation.button, helpTool.button),
      leaveTool.button,
    ),
    help.dialog,
  );
  if (window.matchMedia(panelOpenQuery).matches) panel.open('people');
  // What an embedding page may ask for: the person's own buttons (a disabled one, such as a
  // locked microphone, does nothing), her chat, and her session for the moderator gestures.
  const actions: MeetingActions = {
    toggleAudio: () => mic.button.click(),
    toggleVideo: () => cam.button.click(),
    toggleScreen: () => share.button.click(),
    leave: () => leaveTool.button.click(),
    sendChat: (text) => send({ type: 'chat', text }),
    rename: (name) => people.rename(name),
    setSubject: (text) => send({ type: 'subject', subject: text }),
    setWaitingRoom: (enabled) => send({ type: 'waiting_room', enabled }),
    remove: (participantId) => send({ type: 'remove', participant_id: participantId }),
    local: () => ({ audio: audioOn, video: videoOn, screen: screen !== null }),
    session: () => session,
    isModerator,
  };
  return { element, close, actions };
}
