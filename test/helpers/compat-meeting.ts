import type { CompatMeeting } from '../../src/compat/confapi/model.js';

/** A meeting record as the meeting API stores it, with every field at a plain value. */
export function meeting(tenantId: string, meetingId: string, createTime: number, fields: Partial<CompatMeeting> = {}): CompatMeeting {
  return {
    internalId: `${tenantId}-${meetingId}-${createTime}`,
    tenantId,
    meetingId,
    roomId: `cf-${tenantId}-${meetingId}`,
    name: meetingId,
    attendeePw: '',
    moderatorPw: '',
    createTime,
    voiceBridge: '70000',
    dialNumber: '',
    durationMin: 0,
    maxParticipants: 0,
    record: false,
    guestPolicy: 'ALWAYS_ACCEPT',
    settings: { welcome: '', logoutURL: '', muteOnStart: false, webcamsOnlyForModerator: false, lockSettings: {}, extra: {} },
    metadata: [],
    presentations: [],
    engineMeetingId: null,
    startTime: null,
    endTime: null,
    forciblyEnded: false,
    endReason: null,
    ...fields,
  };
}
