import { plainMeeting, type CompatMeeting } from '../../src/compat/confapi/model.js';

/** A meeting record as the meeting API stores it, with every field at a plain value. */
export function meeting(
  tenantId: string,
  meetingId: string,
  createTime: number,
  fields: Partial<CompatMeeting> = {},
): CompatMeeting {
  const identity = {
    internalId: `${tenantId}-${meetingId}-${createTime}`,
    tenantId,
    meetingId,
    roomId: `cf-${tenantId}-${meetingId}`,
    name: meetingId,
    createTime,
  };
  return plainMeeting(identity, { voiceBridge: '70000', ...fields });
}
