import type { LockSettings } from '../../engine/live/meeting-locks.js';
import type { Incoming } from '../../engine/live/outbox.js';
import { viewLimit, type ClientMessage } from '../../protocol/live.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const bad = (message: string): Incoming => ({ ok: false, message });
const good = (message: ClientMessage): Incoming => ({ ok: true, message });

/** `{mic, cam, cams_moderators_only}`, three booleans, as the engine's settings; null otherwise. */
export function lockSettingsOf(value: unknown): LockSettings | null {
  if (!isObject(value)) return null;
  const { mic, cam, cams_moderators_only: camsModeratorsOnly } = value;
  if (typeof mic !== 'boolean' || typeof cam !== 'boolean' || typeof camsModeratorsOnly !== 'boolean') return null;
  return { mic, cam, camsModeratorsOnly };
}

/**
 * Reads one text frame of a client. Checks shapes only (types and presence); what a
 * message may do (roles, locks, lengths of chat) is decided by the engine's live meeting.
 */
export function parseClientMessage(raw: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return bad('a message must be a JSON object');
  }
  if (!isObject(value) || typeof value.type !== 'string') return bad('a message must be a JSON object with a string "type"');
  switch (value.type) {
    case 'signal':
      if (typeof value.to !== 'string' || value.to === '') return bad('signal needs "to": a participant_id');
      return good({ type: 'signal', to: value.to, data: value.data as never });
    case 'state':
      if (typeof value.audio !== 'boolean' || typeof value.video !== 'boolean' || typeof value.screen !== 'boolean') {
        return bad('state needs "audio", "video" and "screen": booleans');
      }
      return good({ type: 'state', audio: value.audio, video: value.video, screen: value.screen });
    case 'speaking':
      if (typeof value.speaking !== 'boolean') return bad('speaking needs "speaking": a boolean');
      return good({ type: 'speaking', speaking: value.speaking });
    case 'view': {
      const { video, large } = value;
      const ids = Array.isArray(video) && video.length <= viewLimit && video.every((id) => typeof id === 'string' && id.length <= 128);
      if (!ids) return bad(`view needs "video": at most ${viewLimit} participant ids`);
      if (large !== undefined && (typeof large !== 'string' || large.length > 128)) return bad('view\'s "large" must be a participant id');
      return good({ type: 'view', video: video as string[], ...(large === undefined ? {} : { large }) });
    }
    case 'chat':
      if (typeof value.text !== 'string') return bad('chat needs "text": a string');
      return good({ type: 'chat', text: value.text });
    case 'rename':
      if (typeof value.name !== 'string') return bad('rename needs "name": a string');
      return good({ type: 'rename', name: value.name });
    case 'subject':
      if (typeof value.subject !== 'string') return bad('subject needs "subject": a string');
      return good({ type: 'subject', subject: value.subject });
    case 'waiting_room':
      if (typeof value.enabled !== 'boolean') return bad('waiting_room needs "enabled": a boolean');
      return good({ type: 'waiting_room', enabled: value.enabled });
    case 'lock': {
      const locks = lockSettingsOf(value.locks);
      if (!locks) return bad('lock needs "locks": {mic, cam, cams_moderators_only}, three booleans');
      return good({ type: 'lock', locks: { mic: locks.mic, cam: locks.cam, cams_moderators_only: locks.camsModeratorsOnly } });
    }
    case 'create_subgroups':
      if (typeof value.count !== 'number' || !Number.isInteger(value.count)) return bad('create_subgroups needs "count": an integer');
      return good({ type: 'create_subgroups', count: value.count });
    case 'move':
      if (typeof value.participant_id !== 'string' || typeof value.room_id !== 'string') {
        return bad('move needs "participant_id" and "room_id": strings');
      }
      return good({ type: 'move', participant_id: value.participant_id, room_id: value.room_id });
    case 'bring_back':
      return good({ type: 'bring_back' });
    case 'remove':
      if (typeof value.participant_id !== 'string' || value.participant_id === '') return bad('remove needs "participant_id": a participant_id');
      return good({ type: 'remove', participant_id: value.participant_id });
    case 'waiting_resync':
      return good({ type: 'waiting_resync' });
    default:
      return bad(`unknown message type ${JSON.stringify(value.type).slice(0, 40)}`);
  }
}
