import type { Devices } from './devices.js';
import { el } from './dom.js';
import { devicesDialog } from './devices-dialog.js';
import type { PanelTab, SidePanel } from './side-panel.js';
import type { MeetingState } from './state/meeting.js';
import { canShareScreen, listenForShortcuts, shortcutsDialog, tool, type ShortcutEntry } from './toolbar.js';
import { words } from './words/index.js';

const tools = words.toolbar;

/** What the meeting's toolbar asks of the meeting view. */
export interface MeetingToolsOptions {
  readonly devices: Devices;
  readonly panel: SidePanel;
  /** The classroom's raise-hand key, listed with the others. */
  readonly classroomShortcut: ShortcutEntry;
  readonly toggleAudio: () => void;
  readonly toggleVideo: () => void;
  readonly toggleScreen: () => void;
  readonly leave: () => void;
}

/**
 * The meeting's tools with their Alt shortcuts and the help dialog that lists them: microphone,
 * camera, share (offered only where the browser can share a screen, not on phones), devices, the
 * side panel's tabs, help and leave. The view draws their state; `stopShortcuts` ends the keys.
 */
export function meetingTools(options: MeetingToolsOptions) {
  const { panel } = options;
  const mic = tool(tools.mute, 'mic', 'M', options.toggleAudio, { class: 'tool media', 'aria-pressed': 'false' });
  const cam = tool(tools.cameraOff, 'camera', 'V', options.toggleVideo, {
    class: 'tool media',
    'aria-pressed': 'false',
  });
  const sharable = canShareScreen();
  const share = tool(tools.share, 'share', 'S', options.toggleScreen, { 'aria-pressed': 'false' });
  share.button.hidden = !sharable;
  const deviceSettings = devicesDialog(options.devices);
  const devicesTool = tool(tools.devices, 'settings', 'G', () => deviceSettings.open(), { 'aria-haspopup': 'dialog' });
  const panelTools: Record<PanelTab, ReturnType<typeof tool>> = {
    people: tool(tools.people, 'people', 'P', () => panel.toggle('people'), { 'aria-pressed': 'false' }),
    chat: tool(tools.chat, 'chat', 'C', () => panel.toggle('chat'), { 'aria-pressed': 'false' }),
    moderation: tool(tools.moderation, 'moderation', 'O', () => panel.toggle('moderation'), {
      'aria-pressed': 'false',
      hidden: 'hidden',
    }),
  };
  panel.focusOnClose = (tab) => panelTools[tab].button.focus();
  const leaveTool = tool(tools.leave, 'leave', 'L', options.leave, { class: 'tool leave' });
  const shortcuts: ShortcutEntry[] = [
    { what: words.help.mute, key: 'M', run: () => mic.button.click() },
    { what: words.help.camera, key: 'V', run: () => cam.button.click() },
    ...(sharable ? [{ what: words.help.share, key: 'S', run: () => share.button.click() }] : []),
    { what: words.help.devices, key: 'G', run: () => devicesTool.button.click() },
    { what: words.help.people, key: 'P', run: () => panelTools.people.button.click() },
    { what: words.help.chat, key: 'C', run: () => panelTools.chat.button.click() },
    { what: words.help.moderation, key: 'O', run: () => panelTools.moderation.button.click() },
    options.classroomShortcut,
    { what: words.help.leave, key: 'L', run: () => leaveTool.button.click() },
    { what: words.help.shortcuts, key: '/', run: () => help.open() },
  ];
  const help = shortcutsDialog(shortcuts);
  const helpTool = tool(tools.shortcuts, 'keyboard', '/', () => help.open(), { class: 'tool help-tool' });
  const stopShortcuts = listenForShortcuts(shortcuts);
  /** Draws the media tools as the state says (all of them on a welcome). */
  const drawTools = (state: MeetingState, before: MeetingState, welcomed: boolean): void => {
    if (welcomed || state.audio !== before.audio) {
      mic.set(state.audio ? tools.mute : tools.unmute, state.audio ? 'mic' : 'micOff');
      mic.button.setAttribute('aria-pressed', String(!state.audio));
    }
    if (welcomed || state.video !== before.video) {
      cam.set(state.video ? tools.cameraOff : tools.cameraOn, state.video ? 'camera' : 'cameraOff');
      cam.button.setAttribute('aria-pressed', String(!state.video));
    }
    if (state.screen !== before.screen) {
      share.set(state.screen ? tools.stopSharing : tools.share, state.screen ? 'shareOff' : 'share');
      share.button.setAttribute('aria-pressed', String(state.screen));
    }
  };
  /** The locks in force: a tool the locks forbid is disabled. */
  const allowTools = (audio: boolean, video: boolean): void => {
    mic.button.disabled = !audio;
    cam.button.disabled = !video;
  };
  /** The toolbar: media tools, the classroom's, the panel's tabs and help, then Leave at the end. */
  const element = (classroomTools: HTMLElement): HTMLElement =>
    el(
      'div',
      { class: 'toolbar', role: 'toolbar', 'aria-label': tools.label },
      el('div', { class: 'tool-group' }, mic.button, cam.button, share.button, devicesTool.button),
      classroomTools,
      el(
        'div',
        { class: 'tool-group' },
        panelTools.people.button,
        panelTools.chat.button,
        panelTools.moderation.button,
        helpTool.button,
      ),
      leaveTool.button,
    );
  return {
    element,
    ...{ mic, cam, share, deviceSettings, devicesTool, panelTools, leaveTool, help, helpTool, stopShortcuts },
    ...{ drawTools, allowTools },
  };
}
