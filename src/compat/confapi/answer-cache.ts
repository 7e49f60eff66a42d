import type { LiveAttendee } from '../live-view.js';
import type { CompatMeeting } from './model.js';

/** What of the live state an answer shows, as one comparable string ('' when nobody is there). */
export function liveKey(attendees: readonly LiveAttendee[]): string {
  let key = '';
  for (const a of attendees)
    key += `${a.participantId}\u0000${a.name}\u0000${a.role}\u0000${a.audio ? 1 : 0}${a.video ? 1 : 0}\u0001`;
  return key;
}

/**
 * Built answers of one kind (getMeetingInfo), kept per meeting version. Meeting records are
 * immutable and every write replaces the object (see OpenMeetings), so the object is the
 * version: a changed meeting misses and is built again, and an old version is collected with
 * its answer. The live state (attendees, audio, video) is not in the record, so its key is
 * stored beside the answer and compared. Entries are reached only through a meeting the
 * caller's tenant owns, so an answer never crosses tenants.
 */
export class MeetingAnswerCache {
  private readonly byMeeting = new WeakMap<CompatMeeting, { readonly live: string; readonly body: string }>();

  /** The answer for this meeting version and live state, built by `build` when not kept. */
  answer(meeting: CompatMeeting, live: string, build: () => string): string {
    const kept = this.byMeeting.get(meeting);
    if (kept !== undefined && kept.live === live) return kept.body;
    const body = build();
    this.byMeeting.set(meeting, { live, body });
    return body;
  }
}
