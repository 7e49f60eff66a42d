import { closeCodes, type ChatMessage, type ClientMessage, type Locks, type ParticipantView, type ServerMessage } from '../protocol/live.js';
import { mayAudio as lockAllowsAudio, mayVideo as lockAllowsVideo } from '../protocol/locks.js';
import { announce } from './announce.js';
import { roomApi } from './api.js';
import type { Devices } from './devices.js';
import type { LeaveReason, MeetingActions, MeetingHooks } from './embed-bridge.js';
import { badge, button, el, field } from './dom.js';
import { Mesh } from './mesh.js';
import { locksForm, WaitingPanel } from './moderator.js';
import { nameAdvice } from './name-advice.js';

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
/** The server's limits (engine/waiting/knock-fields.ts, engine/meetings/subject.ts), checked here first to say why at once. */
const nameMax = 64;
const subjectMax = 128;

/** The meeting: video tiles, microphone/camera/screen/leave, chat and the participants panel. */
export function meetingView(options: MeetingOptions): { element: HTMLElement; close: () => void; actions: MeetingActions } {
  const { roomId, devices } = options;
  const session = options.session;
  let self: ParticipantView | null = null;
  let locks: Locks = { mic: false, cam: false, cams_moderators_only: false };
  const participants = new Map<string, ParticipantView>();
  const tiles = new Map<string, HTMLElement>();
  let audioOn = true;
  let videoOn = true;
  let screen: MediaStreamTrack | null = null;
  let closed = false;

  const tilesEl = el('ul', { class: 'tiles', 'aria-label': 'Video of the participants' });
  const peopleList = el('ul', { 'aria-label': 'Participants' });
  // A log is not a role an <ol> may take: the list sits inside it. Focusable, so the keyboard can scroll it.
  const chatList = el('ol', { class: 'chat-list' });
  const chatLog = el('div', { class: 'chat-log', role: 'log', 'aria-label': 'Chat messages', tabindex: 0 }, chatList);
  const chatInput = el('input', { name: 'chat', maxlength: 2000, autocomplete: 'off' });
  const chatForm = el('form', {}, field('Chat message', chatInput), el('button', { type: 'submit', text: 'Send' }));
  const moderatorTools = el('div');
  const title = el('h1', { class: 'meeting-title', text: 'Meeting' });
  const renameInput = el('input', { name: 'name', maxlength: nameMax, autocomplete: 'name' });
  const renameHint = el('p', { class: 'hint', 'aria-live': 'polite' });
  const renameForm = el(
    'form',
    { class: 'rename', hidden: true, 'aria-label': 'Change your name' },
    field('Your name', renameInput),
    renameHint,
    el('button', { type: 'submit', text: 'Save name' }),
    button('Cancel', () => closeRename()),
  );
  const subjectInput = el('input', { name: 'subject', maxlength: subjectMax, autocomplete: 'off' });
  const subjectForm = el(
    'form',
    { 'aria-label': 'Meeting subject' },
    field('Meeting subject', subjectInput, 'Shown to everyone as the title of the meeting. Leave empty to remove it.'),
    el('button', { type: 'submit', text: 'Set subject' }),
  );
  let renaming = false;
  const micButton = button('Mute microphone', () => toggleAudio(), { 'aria-pressed': 'false' });
  const camButton = button('Turn camera off', () => toggleVideo(), { 'aria-pressed': 'false' });
  const screenButton = button('Share screen', () => void toggleScreen(), { 'aria-pressed': 'false' });
  const leaveButton = button('Leave meeting', () => void leave());
  const lockNotice = el('p', { class: 'hint', hidden: true });

  const socketUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/room/${encodeURIComponent(roomId)}/live?session=${encodeURIComponent(session)}`;
  const socket = new WebSocket(socketUrl);
  const send = (message: ClientMessage) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };
  const waiting = new WaitingPanel(
    roomId,
    () => session,
    (enabled) => send({ type: 'waiting_room', enabled }),
  );
  const mesh = new Mesh({ send: (to, data) => send({ type: 'signal', to, data }), onStream: (id, stream) => attachStream(id, stream) }, devices.outgoing);
  let meshReady: Mesh | null = null;
  const isModerator = () => self?.role === 'moderator';
  const mayAudio = () => lockAllowsAudio(self?.role ?? 'participant', locks);
  const mayVideo = () => lockAllowsVideo(self?.role ?? 'participant', locks);

  function tileFor(p: ParticipantView): HTMLElement {
    let tile = tiles.get(p.participant_id);
    if (!tile) {
      const video = el('video', { autoplay: true, playsinline: true, 'data-participant': p.participant_id });
      if (p.participant_id === self?.participant_id) {
        video.muted = true;
        video.srcObject = devices.outgoing;
      }
      // An item of the tiles list holding a figure: a figure cannot itself be a list item.
      tile = el('li', { class: 'tile' }, el('figure', {}, video, el('figcaption')));
      tiles.set(p.participant_id, tile);
      tilesEl.append(tile);
    }
    const marks = [
      p.role === 'moderator' ? badge('Moderator') : null,
      p.audio ? null : badge('Muted', 'state'),
      p.screen ? badge('Sharing screen', 'state') : null,
    ];
    tile.querySelector('figcaption')!.replaceChildren(el('span', { class: 'name', text: p.name }), ...marks.filter((m) => m !== null));
    tile.setAttribute('aria-label', p.name);
    return tile;
  }

  function attachStream(id: string, stream: MediaStream): void {
    const p = participants.get(id);
    const tile = p ? tileFor(p) : null;
    const video = tile?.querySelector('video');
    if (video && video.srcObject !== stream) {
      video.srcObject = stream;
      void video.play().catch(() => {});
    }
  }

  function renderPeople(): void {
    const items = [...participants.values()].map((p) => {
      const item = el('li', {}, el('span', { class: 'name', text: p.name }), p.role === 'moderator' ? badge('Moderator') : null);
      if (p.participant_id === self?.participant_id) {
        item.append(
          ' ',
          button('Change your name', () => openRename(), { 'aria-label': 'Change your name', 'aria-expanded': String(!renameForm.hidden) }),
        );
      }
      if (isModerator() && p.participant_id !== self?.participant_id && subgroups.length > 0) item.append(moveControl(p));
      return item;
    });
    // The list is redrawn whenever someone's media state changes: the control that had the
    // focus gets it back, so a moderator choosing a sub-group is not thrown out of the list.
    const focused = peopleList.contains(document.activeElement) ? document.activeElement?.getAttribute('aria-label') : null;
    peopleList.replaceChildren(...items);
    if (focused) [...peopleList.querySelectorAll<HTMLElement>('[aria-label]')].find((e) => e.getAttribute('aria-label') === focused)?.focus();
    waiting.setSharing([...participants.values()].some((p) => p.screen));
  }

  function openRename(): void {
    renameInput.value = self?.name ?? '';
    renameHint.textContent = '';
    renameForm.hidden = false;
    renderPeople();
    renameInput.focus();
  }

  function closeRename(): void {
    renameForm.hidden = true;
    renaming = false;
    renderPeople();
    peopleList.querySelector<HTMLElement>('[aria-label="Change your name"]')?.focus();
  }

  function rename(name: string): boolean {
    const next = name.trim();
    // The length is checked here to say why at once; the rest of the rule is the server's.
    if (next === '' || [...next].length > nameMax) return false;
    if (next === self?.name) return true;
    renaming = true;
    send({ type: 'rename', name: next });
    return true;
  }

  renameForm.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!rename(renameInput.value)) {
      renameHint.textContent = renameInput.value.trim() === '' ? 'Please type a name.' : nameAdvice(renameInput.value);
      return;
    }
    if (renameInput.value.trim() === self?.name) closeRename();
  });

  subjectForm.addEventListener('submit', (event) => {
    event.preventDefault();
    send({ type: 'subject', subject: subjectInput.value.trim().slice(0, subjectMax) });
  });

  /** The subject is the page's heading and title; it is text, never markup. */
  function showSubject(next: string, announced: boolean): void {
    title.textContent = next || 'Meeting';
    document.title = next ? `${next} – Meeting` : 'Meeting';
    if (document.activeElement !== subjectInput) subjectInput.value = next;
    if (announced) announce(next ? `The meeting's subject is now: ${next}` : "The meeting's subject was removed");
  }

  let subgroups: string[] = [];
  /** The sub-group chosen for each participant, kept across redraws until the move is sent. */
  const moveChoices = new Map<string, string>();
  function moveControl(p: ParticipantView): HTMLElement {
    const select = el('select', { 'aria-label': `Sub-group for ${p.name}` }, ...subgroups.map((g) => el('option', { value: g, text: g })));
    const chosen = moveChoices.get(p.participant_id);
    if (chosen !== undefined && subgroups.includes(chosen)) select.value = chosen;
    select.addEventListener('change', () => moveChoices.set(p.participant_id, select.value));
    const move = () => {
      moveChoices.delete(p.participant_id);
      send({ type: 'move', participant_id: p.participant_id, room_id: select.value });
    };
    return el('span', {}, select, button('Move', move, { 'aria-label': `Move ${p.name}` }));
  }

  function renderModeratorTools(): void {
    if (!isModerator()) {
      moderatorTools.replaceChildren();
      return;
    }
    const count = el('input', { type: 'number', min: 1, max: 20, value: 2 });
    moderatorTools.replaceChildren(
      el('section', { 'aria-labelledby': 'subject-heading' }, el('h3', { id: 'subject-heading', text: 'Subject' }), subjectForm),
      locksForm(locks, (next) => send({ type: 'lock', locks: next })),
      el(
        'section',
        { 'aria-labelledby': 'groups-heading' },
        el('h3', { id: 'groups-heading', text: 'Sub-groups' }),
        field('Number of sub-groups', count),
        button('Create sub-groups', () => send({ type: 'create_subgroups', count: Number(count.value) })),
        subgroups.length ? el('p', { text: `Sub-groups: ${subgroups.join(', ')}` }) : null,
        subgroups.length ? button('Bring everyone back', () => send({ type: 'bring_back' })) : null,
      ),
    );
  }

  function showChat(message: ChatMessage): void {
    const time = new Date(message.at).toLocaleTimeString();
    // The service's own messages carry `system`, not a name: the badge is the sender.
    const sender = message.from.system
      ? [badge('System', 'system')]
      : [el('strong', { class: 'name', text: message.from.name }), message.from.role === 'moderator' ? badge('Moderator') : null];
    chatList.append(el('li', { class: message.from.system ? 'from-system' : undefined }, ...sender, ` (${time}): `, el('span', { text: message.text })));
    chatLog.scrollTop = chatLog.scrollHeight;
  }

  function applyLocks(): void {
    if (!mayAudio() && audioOn) setAudio(false);
    if (!mayVideo() && videoOn) setVideo(false);
    micButton.disabled = !mayAudio();
    camButton.disabled = !mayVideo();
    const notes = [!mayAudio() ? 'Your microphone is locked by a moderator.' : '', !mayVideo() ? 'Your camera is locked by a moderator.' : ''].filter(Boolean);
    lockNotice.textContent = notes.join(' ');
    lockNotice.hidden = notes.length === 0;
    meshReady?.setAllowed(mayAudio(), mayVideo());
  }

  function publishState(): void {
    send({ type: 'state', audio: audioOn, video: videoOn, screen: screen !== null });
    options.hooks?.localState({ audio: audioOn, video: videoOn, screen: screen !== null });
  }

  function setAudio(on: boolean): void {
    audioOn = on;
    devices.outgoing.getAudioTracks().forEach((t) => (t.enabled = on));
    micButton.textContent = on ? 'Mute microphone' : 'Unmute microphone';
    micButton.setAttribute('aria-pressed', String(!on));
    publishState();
  }

  function setVideo(on: boolean): void {
    videoOn = on;
    devices.outgoing.getVideoTracks().forEach((t) => (t.enabled = on));
    camButton.textContent = on ? 'Turn camera off' : 'Turn camera on';
    camButton.setAttribute('aria-pressed', String(!on));
    publishState();
  }

  const toggleAudio = () => {
    setAudio(!audioOn);
    announce(audioOn ? 'Microphone on' : 'Microphone muted');
  };
  const toggleVideo = () => {
    setVideo(!videoOn);
    announce(videoOn ? 'Camera on' : 'Camera off');
  };

  async function toggleScreen(): Promise<void> {
    if (screen) {
      screen.stop();
      screen = null;
      meshReady?.replaceVideo(devices.outgoing.getVideoTracks()[0] ?? null);
    } else {
      try {
        const display = await navigator.mediaDevices.getDisplayMedia({ video: true });
        screen = display.getVideoTracks()[0] ?? null;
        if (!screen) return;
        screen.addEventListener('ended', () => void (screen && toggleScreen()));
        meshReady?.replaceVideo(screen);
      } catch {
        announce('Screen sharing was not started');
        return;
      }
    }
    screenButton.textContent = screen ? 'Stop sharing screen' : 'Share screen';
    screenButton.setAttribute('aria-pressed', String(screen !== null));
    announce(screen ? 'You are sharing your screen' : 'Screen sharing stopped');
    publishState();
  }

  chatForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = chatInput.value.trim();
    if (!text) return;
    send({ type: 'chat', text });
    chatInput.value = '';
  });

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
      announce('Moving to the sub-group did not work.');
    }
  }

  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as ServerMessage;
    switch (message.type) {
      case 'welcome': {
        self = message.self;
        locks = message.locks;
        subgroups = [...message.subgroups];
        mesh.setSelf(self.participant_id);
        meshReady = mesh;
        for (const p of [self, ...message.participants]) participants.set(p.participant_id, p);
        for (const p of participants.values()) tileFor(p);
        for (const m of message.chat) showChat(m);
        showSubject(message.subject, false);
        applyLocks();
        if (message.mute_on_start && audioOn) setAudio(false);
        mesh.setAllowed(mayAudio(), mayVideo());
        for (const p of message.participants) if (p.participant_id !== self.participant_id) mesh.connect(p.participant_id);
        if (isModerator()) peopleHeading.after(waiting.section);
        renderModeratorTools();
        renderPeople();
        publishState();
        announce('You are in the meeting');
        break;
      }
      case 'participant_joined':
        participants.set(message.participant.participant_id, message.participant);
        tileFor(message.participant);
        renderPeople();
        announce(`${message.participant.name} joined`);
        break;
      case 'participant_left': {
        const gone = participants.get(message.participant_id);
        participants.delete(message.participant_id);
        tiles.get(message.participant_id)?.remove();
        tiles.delete(message.participant_id);
        mesh.remove(message.participant_id);
        renderPeople();
        if (gone) announce(`${gone.name} left`);
        break;
      }
      case 'state': {
        const before = participants.get(message.participant.participant_id);
        participants.set(message.participant.participant_id, message.participant);
        const mine = message.participant.participant_id === self?.participant_id;
        if (mine && self) self = { ...self, name: message.participant.name };
        if (before && before.name !== message.participant.name) {
          if (mine && renaming) closeRename();
          announce(mine ? `Your name is now ${message.participant.name}` : `${before.name} is now called ${message.participant.name}`);
        }
        tileFor(message.participant);
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
        tiles.get(message.participant_id)?.classList.toggle('speaking', message.speaking);
        break;
      case 'chat':
        showChat(message.message);
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
        renderModeratorTools();
        announce('Lock settings changed');
        break;
      case 'role': {
        const known = participants.get(message.participant_id);
        if (known) {
          participants.set(message.participant_id, { ...known, role: message.role });
          tileFor(participants.get(message.participant_id)!);
        }
        if (self && message.participant_id === self.participant_id && self.role !== message.role) {
          self = { ...self, role: message.role };
          // As welcome does for a moderator: the waiting section and tools, and locks no longer bind her.
          if (isModerator()) peopleHeading.after(waiting.section);
          else waiting.section.remove();
          applyLocks();
          renderModeratorTools();
          if (isModerator()) announce('You are now a moderator');
        }
        renderPeople();
        break;
      }
      case 'signal':
        void mesh.handle(message.from, message.data).catch(() => {});
        break;
      case 'subgroups':
        subgroups = [...message.subgroups];
        renderModeratorTools();
        renderPeople();
        break;
      case 'move':
        void move(message.room_id);
        break;
      case 'ended':
        close();
        options.left('The meeting has ended.', 'ended');
        options.hooks?.leaving('ended');
        break;
      case 'error':
        // A refused name is said where it was typed, in the page's plain words.
        if (renaming && message.code === 'invalid_field' && message.message.startsWith('name')) {
          renaming = false;
          renameHint.textContent = nameAdvice(renameInput.value);
        } else if (renaming && message.code === 'rate_limited') {
          renaming = false;
          renameHint.textContent = message.message;
        }
        announce(message.message);
        break;
    }
    options.hooks?.message(message);
  });
  socket.addEventListener('close', (event) => {
    if (closed) return;
    close();
    // The daemon is stopping.
    if (event.code === closeCodes.restarting) {
      options.left('The service is restarting. This page comes back by itself in a few seconds.', 'lost');
      options.hooks?.leaving('lost');
      // Once the service answers again the page loads afresh: back in the meeting, or at the arrival.
      const comeBack = (): void => {
        void fetch('/healthz', { cache: 'no-store' })
          .then(
            (answer) => answer.ok,
            () => false,
          )
          .then((up) => (up ? location.reload() : void window.setTimeout(comeBack, 2000)));
      };
      window.setTimeout(comeBack, 2000);
      return;
    }
    options.left(event.code === closeCodes.replaced ? 'You joined from another window.' : 'The connection to the meeting was lost.', 'lost');
    options.hooks?.leaving('lost');
  });

  async function leave(): Promise<void> {
    close();
    await roomApi.leave(roomId, session);
    options.left('You left the meeting.', 'hangup');
    options.hooks?.leaving('hangup');
  }

  function close(): void {
    if (closed) return;
    closed = true;
    window.clearInterval(speakingTimer);
    mesh.close();
    screen?.stop();
    socket.close();
  }

  devices.onChange(() => {
    if (!screen) meshReady?.replaceVideo(devices.outgoing.getVideoTracks()[0] ?? null);
  });

  const peopleHeading = el('h2', { id: 'people-heading', text: 'Participants' });
  const panel = el(
    'aside',
    { class: 'panel', 'aria-label': 'Meeting panel' },
    el('section', { 'aria-labelledby': 'people-heading' }, peopleHeading, peopleList, renameForm),
    el('section', { 'aria-labelledby': 'chat-heading' }, el('h2', { id: 'chat-heading', text: 'Chat' }), chatLog, chatForm),
    moderatorTools,
  );
  const element = el(
    'div',
    { class: 'meeting' },
    el(
      'section',
      { 'aria-label': 'Meeting' },
      title,
      waiting.notification,
      tilesEl,
      lockNotice,
      el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Meeting controls' }, micButton, camButton, screenButton, leaveButton),
    ),
    panel,
  );
  // What an embedding page may ask for: the person's own buttons (a disabled one, such as a
  // locked microphone, does nothing), her chat, and her session for the moderator gestures.
  const actions: MeetingActions = {
    toggleAudio: () => micButton.click(),
    toggleVideo: () => camButton.click(),
    toggleScreen: () => screenButton.click(),
    leave: () => leaveButton.click(),
    sendChat: (text) => send({ type: 'chat', text }),
    rename: (name) => rename(name),
    setSubject: (text) => send({ type: 'subject', subject: text }),
    setWaitingRoom: (enabled) => send({ type: 'waiting_room', enabled }),
    local: () => ({ audio: audioOn, video: videoOn, screen: screen !== null }),
    session: () => session,
    isModerator,
  };
  return { element, close, actions };
}
