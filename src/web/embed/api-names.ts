// The names of external_api.js (src/web/embed/external-api.ts), bundled into that classic script:
// the commands and events it carries, and the embedded client's methods and commands this service
// does not have, with the answers that client gives when it cannot (issue 33 point 3).

/** Public command names executeCommand accepts; the page decides what each does. */
export const commands: Record<string, true> = {
  toggleAudio: true,
  toggleVideo: true,
  toggleShareScreen: true,
  hangup: true,
  sendChatMessage: true,
  setDisplayName: true,
  displayName: true,
  subject: true,
  setTileView: true,
  toggleLobby: true,
  answerKnockingParticipant: true,
  kickParticipant: true,
  toggleRaiseHand: true,
  endConference: true,
  muteRemoteParticipant: true,
  toggleChat: true,
  toggleParticipantsPane: true,
  toggleTileView: true,
  muteEveryone: true,
};
// The embedded client's other commands (issue 33 point 3): accepted, nothing done, said once in the console.
export const unsupportedCommands = (
  'email avatarUrl password localSubject toggleFilmStrip toggleSubtitles toggleWhiteboard toggleCameraMirror ' +
  'toggleVirtualBackgroundDialog setAudioOnly toggleE2EE grantModerator initiatePrivateChat ' +
  'askToUnmute approveVideo cancelPrivateChat autoAssignToBreakoutRooms stopShareVideo rejectParticipant ' +
  'toggleModeration pinParticipant setLargeVideoParticipant setVideoQuality sendEndpointTextMessage startRecording ' +
  'stopRecording showNotification hideNotification overwriteConfig overwriteNames setMeetingTimer addBreakoutRoom ' +
  'closeBreakoutRoom joinBreakoutRoom removeBreakoutRoom sendParticipantToRoom resizeFilmStrip resizeLargeVideo ' +
  'sendCameraFacingMode sendTones setAssumedBandwidthBps setBlurredBackground setFollowMe setMediaEncryptionKey ' +
  'setNoiseSuppressionEnabled setParticipantVolume setSecondScreen setSubtitles setVirtualBackground startShareVideo ' +
  'submitFeedback toggleCamera grantRecordingConsent showPiP hidePiP toggleNoiseSuppression'
).split(' ');
/**
 * The embedded client's methods for what this service does not have: each answers as that
 * client does when it cannot (a promise for its promise methods), says so once in the console,
 * and never throws. `undefined` answers are the void and the unknown ones.
 */
export const unsupportedAnswers: Record<string, { answer: unknown; promise: boolean }> = {
  captureLargeVideoScreenshot: { answer: { error: 'not supported' }, promise: true },
  captureCameraPicture: { answer: { error: 'not supported' }, promise: true },
  getCustomAvatarBackgrounds: { answer: { avatarBackgrounds: [] }, promise: true },
  getDeploymentInfo: { answer: {}, promise: true },
  getLivestreamUrl: { answer: undefined, promise: true },
  getSharedDocumentUrl: { answer: '', promise: true },
  getSessionId: { answer: '', promise: true },
  getConnectionStats: { answer: { error: {} }, promise: true },
  listBreakoutRooms: { answer: {}, promise: true },
  invite: { answer: { error: {} }, promise: true },
  isModerationOn: { answer: false, promise: true },
  isParticipantForceMuted: { answer: false, promise: true },
  isAudioDisabled: { answer: false, promise: true },
  isStartSilent: { answer: false, promise: true },
  isP2pActive: { answer: null, promise: true },
  setMediaEncryptionKey: { answer: undefined, promise: true },
  getEmail: { answer: undefined, promise: false },
  getAvatarURL: { answer: undefined, promise: false },
  getVideoQuality: { answer: undefined, promise: false },
  isVisitor: { answer: false, promise: false },
};
for (const name of unsupportedCommands) unsupportedAnswers[name] ??= { answer: undefined, promise: false };
unsupportedAnswers.sendProxyConnectionEvent = { answer: undefined, promise: false };
unsupportedAnswers.sendExternalShareSignal = { answer: undefined, promise: false };
const warned = new Set<string>();
export function notSupported(name: string): void {
  if (warned.has(name)) return;
  warned.add(name);
  console.warn(`VideoMeetExternalAPI: "${name}" is not supported by this service; nothing was done.`);
}
/** The embedded client's device setters, and the kind of device each names. */
export const deviceSetters: Record<string, string> = {
  setAudioInputDevice: 'audioinput',
  setAudioOutputDevice: 'audiooutput',
  setVideoInputDevice: 'videoinput',
};

/** The device requests the page inside answers (embed-devices.ts); set*Device go as its `setDevice`. */
export const deviceRequests = [
  'getAvailableDevices',
  'getCurrentDevices',
  'isDeviceChangeAvailable',
  'isMultipleAudioInputSupported',
  'isAudioAvailable',
  'isVideoAvailable',
];

/** Requests the page inside answers (embed-answers.ts, and its devices). */
export const pageRequests = ['getContentSharingParticipants', 'isParticipantsPaneOpen', ...deviceRequests];
export const events = [
  'ready',
  'videoConferenceJoined',
  'videoConferenceLeft',
  'readyToClose',
  'participantJoined',
  'participantLeft',
  'participantKickedOut',
  'participantRoleChanged',
  'displayNameChange',
  'subjectChange',
  'audioMuteStatusChanged',
  'videoMuteStatusChanged',
  'screenSharingStatusChanged',
  'dominantSpeakerChanged',
  'incomingMessage',
  'outgoingMessage',
  'knockingParticipant',
  'raiseHandUpdated',
  'tileViewChanged',
  'chatUpdated',
  'participantsPaneToggled',
  'errorOccurred',
];
