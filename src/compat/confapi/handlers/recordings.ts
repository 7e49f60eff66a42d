import { xml, type Answer, type CallContext } from '../context.js';
import { failure } from '../errors.js';
import type { RecordingRecord } from '../model.js';
import { listOf } from '../params.js';
import { success, type XmlElement } from '../xml.js';

/**
 * The recording calls. No recording module exists, so nothing produces recordings; the
 * calls work on the module's local recording metadata only (getRecordings lists it,
 * publish/update/delete change or remove entries, and no file is ever touched).
 */

function recordingElement(r: RecordingRecord): XmlElement {
  const metadata: Record<string, string> = Object.fromEntries(r.metadata);
  return {
    recordID: r.recordId,
    meetingID: r.meetingId,
    internalMeetingID: r.internalId,
    name: r.name,
    isBreakout: false,
    published: r.published,
    protected: r.protected,
    state: r.published ? 'published' : 'unpublished',
    startTime: r.startTime,
    endTime: r.endTime,
    participants: r.participants,
    metadata,
    playback: '',
  };
}

export async function getRecordings(ctx: CallContext): Promise<Answer> {
  const recordIds = listOf(ctx.params.get('recordID'));
  const meetingIds = listOf(ctx.params.get('meetingID'));
  const found = await ctx.deps.store.recordings(ctx.tenant.id, { recordIds, meetingIds });
  if (found.length === 0) {
    return xml(
      success({ recordings: '', messageKey: 'noRecordings', message: 'There are no recordings for the meeting(s).' }),
    );
  }
  return xml(success({ recordings: { recording: found.map(recordingElement) } }));
}

/** The caller's recordings named by `recordID` (a comma list); missingParamRecordID or notFound otherwise. */
async function named(ctx: CallContext): Promise<RecordingRecord[]> {
  const ids = listOf(ctx.params.get('recordID'));
  if (ids.length === 0) throw failure('missingParamRecordID');
  const found = await ctx.deps.store.recordings(ctx.tenant.id, { recordIds: ids });
  if (found.length === 0) throw failure('recordingNotFound');
  return found;
}

export async function publishRecordings(ctx: CallContext): Promise<Answer> {
  const publish = ctx.params.get('publish');
  if (publish === undefined || !/^(true|false)$/i.test(publish)) throw failure('missingParamPublish');
  const found = await named(ctx);
  const value = publish.toLowerCase() === 'true';
  await ctx.deps.store.transaction(async () => {
    for (const r of found) await ctx.deps.store.updateRecording({ ...r, published: value });
  });
  return xml(success({ published: publish }));
}

export async function deleteRecordings(ctx: CallContext): Promise<Answer> {
  const found = await named(ctx);
  await ctx.deps.store.transaction(async () => {
    for (const r of found) await ctx.deps.store.deleteRecording(r.recordId);
  });
  return xml(success({ deleted: true }));
}

const metaName = /^meta_([a-zA-Z][a-zA-Z0-9-]*)$/;

export async function updateRecordings(ctx: CallContext): Promise<Answer> {
  const found = await named(ctx);
  const protect = ctx.params.get('protect');
  if (protect !== undefined && !/^(true|false)$/i.test(protect))
    throw failure('validationError', 'protect must be true or false');
  const changes: [string, string][] = [];
  for (const [name, value] of ctx.params.entries()) {
    const match = metaName.exec(name);
    if (match) changes.push([match[1]!.toLowerCase(), value.slice(0, 4096)]);
  }
  await ctx.deps.store.transaction(async () => {
    for (const r of found) {
      const metadata = new Map(r.metadata);
      // A non-empty value sets the key, an empty one removes it.
      for (const [key, value] of changes) {
        if (value === '') metadata.delete(key);
        else metadata.set(key, value);
      }
      await ctx.deps.store.updateRecording({
        ...r,
        metadata: [...metadata.entries()],
        protected: protect === undefined ? r.protected : protect.toLowerCase() === 'true',
      });
    }
  });
  return xml(success({ updated: true }));
}
