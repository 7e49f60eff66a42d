import type { AsyncCompatStore } from './async-store.js';

/**
 * What the meeting API's open-meeting stores (`CachedCompatStore`, `SharedCompatStore`) pass to
 * the inner store unchanged: ended meetings, custom data, chat, callbacks and recordings are
 * read and written there, whichever way the open meetings are kept.
 */
export abstract class DelegatingCompatStore {
  protected constructor(protected readonly inner: AsyncCompatStore) {}

  endedRoomIds: AsyncCompatStore['endedRoomIds'] = () => this.inner.endedRoomIds();
  setCustomData: AsyncCompatStore['setCustomData'] = (internalId, userKey, data) =>
    this.inner.setCustomData(internalId, userKey, data);
  customDataOf: AsyncCompatStore['customDataOf'] = (internalId) => this.inner.customDataOf(internalId);
  appendChat: AsyncCompatStore['appendChat'] = (record) => this.inner.appendChat(record);
  chatOf: AsyncCompatStore['chatOf'] = (internalId) => this.inner.chatOf(internalId);
  insertCallback: AsyncCompatStore['insertCallback'] = (job) => this.inner.insertCallback(job);
  updateCallback: AsyncCompatStore['updateCallback'] = (job) => this.inner.updateCallback(job);
  pendingCallbacks: AsyncCompatStore['pendingCallbacks'] = () => this.inner.pendingCallbacks();
  claimDueCallbacks: AsyncCompatStore['claimDueCallbacks'] = (now, leaseUntil, limit) =>
    this.inner.claimDueCallbacks(now, leaseUntil, limit);
  insertRecording: AsyncCompatStore['insertRecording'] = (recording) => this.inner.insertRecording(recording);
  updateRecording: AsyncCompatStore['updateRecording'] = (recording) => this.inner.updateRecording(recording);
  deleteRecording: AsyncCompatStore['deleteRecording'] = (recordId) => this.inner.deleteRecording(recordId);
  recordings: AsyncCompatStore['recordings'] = (tenantId, filter) => this.inner.recordings(tenantId, filter);
  close: AsyncCompatStore['close'] = () => this.inner.close();
}
