import type { Devices } from './devices.js';
import { deviceRequests as externalDeviceRequests } from './embed/api-names.js';

/**
 * The device requests of external_api.js (issue 33 point 3: getAvailableDevices,
 * getCurrentDevices, set*Device, isDeviceChangeAvailable, …), answered in the embedded client's
 * shapes from the browser's list and the person's choices on her device check. The mapping is
 * pure, tested in Node (test/unit/web/embed-devices.test.ts).
 */

export interface DeviceInfo {
  readonly deviceId: string;
  readonly groupId: string;
  readonly kind: string;
  readonly label: string;
}

type Which = 'audioInput' | 'audioOutput' | 'videoInput';
const kinds: Record<Which, MediaDeviceKind> = {
  audioInput: 'audioinput',
  audioOutput: 'audiooutput',
  videoInput: 'videoinput',
};
/** Her choice on the device check for each kind ('' is the browser's default, the first of its kind). */
const choiceOf = { audioinput: 'microphone', audiooutput: 'speaker', videoinput: 'camera' } as const;

export type Chosen = Readonly<Record<'microphone' | 'speaker' | 'camera', string>>;

const plain = (d: DeviceInfo): DeviceInfo => ({
  deviceId: d.deviceId,
  groupId: d.groupId,
  kind: d.kind,
  label: d.label,
});

/** `{audioInput, audioOutput, videoInput}`: the browser's devices of each kind. */
export function availableDevices(list: readonly DeviceInfo[]): Record<Which, DeviceInfo[]> {
  const of = (kind: MediaDeviceKind) => list.filter((d) => d.kind === kind).map(plain);
  return { audioInput: of(kinds.audioInput), audioOutput: of(kinds.audioOutput), videoInput: of(kinds.videoInput) };
}

/** The device in use of each kind: her choice where the browser still has it, else the first (the default). */
export function currentDevices(list: readonly DeviceInfo[], chosen: Chosen): Partial<Record<Which, DeviceInfo>> {
  const current: Partial<Record<Which, DeviceInfo>> = {};
  for (const which of Object.keys(kinds) as Which[]) {
    const kind = kinds[which];
    const ofKind = list.filter((d) => d.kind === kind);
    const found = ofKind.find((d) => d.deviceId === chosen[choiceOf[kind]]) ?? ofKind[0];
    if (found) current[which] = plain(found);
  }
  return current;
}

/** The device a `setDevice` names, as upstream finds it: by id first, else by its label; null when none. */
export function deviceNamed(list: readonly DeviceInfo[], kind: string, label: unknown, id: unknown): DeviceInfo | null {
  const ofKind = list.filter((d) => d.kind === kind);
  return (
    (typeof id === 'string' && id !== '' ? ofKind.find((d) => d.deviceId === id) : undefined) ??
    (typeof label === 'string' && label !== '' ? ofKind.find((d) => d.label === label) : undefined) ??
    null
  );
}

/** What the bridge answers here: external_api.js's device requests, and `setDevice` behind its set*Device. */
export const deviceRequests = [...externalDeviceRequests, 'setDevice'];

/** The answer to one of deviceRequests, from the browser and the page's Devices. */
export async function answerDevices(name: string, args: readonly unknown[], devices: Devices): Promise<unknown> {
  const list: DeviceInfo[] = await navigator.mediaDevices.enumerateDevices().catch(() => []);
  switch (name) {
    case 'getAvailableDevices':
      return availableDevices(list);
    case 'getCurrentDevices':
      return currentDevices(list, devices.choices);
    case 'isDeviceChangeAvailable':
      // Inputs always; the speaker where the browser can route sound (setSinkId).
      return args[0] !== 'output' || 'setSinkId' in HTMLMediaElement.prototype;
    case 'isMultipleAudioInputSupported':
      return false;
    case 'isAudioAvailable':
      return list.some((d) => d.kind === 'audioinput');
    case 'isVideoAvailable':
      return list.some((d) => d.kind === 'videoinput');
    default: {
      const wanted = (typeof args[0] === 'object' && args[0] !== null ? args[0] : {}) as Record<string, unknown>;
      const kind = typeof wanted.kind === 'string' ? wanted.kind : '';
      const device = deviceNamed(list, kind, wanted.label, wanted.id);
      if (!device || !(kind in choiceOf)) {
        console.warn(`setDevice: no ${kind || 'such'} device with that label or id; nothing was changed.`);
        return false;
      }
      await devices.use(choiceOf[kind as keyof typeof choiceOf], device.deviceId);
      return true;
    }
  }
}
