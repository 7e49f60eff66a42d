// Issue 33 points 3 and 5: the built external_api.js, run in Node against a stand-in page, has
// every method of the embedded client's public API (the installed @jitsi/react-sdk's typings,
// and the handbook's methods and commands): each is callable without a throw, what the page can
// do reaches the page, the rest answers as that client does when it cannot and is said once.
// errorOccurred reaches listeners flat.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import t from 'tap';

const script = readFileSync(new URL('../../../dist/web/embed/external-api.js', import.meta.url), 'utf8');
const typings = readFileSync(
  new URL('../../../node_modules/@jitsi/react-sdk/lib/types/IJitsiMeetExternalApi.d.ts', import.meta.url),
  'utf8',
);
/** The methods the SDK's interface declares (`name: (…) => …`). */
const typedMethods = [...typings.matchAll(/^ {4}(\w+): \(/gm)].map((m) => m[1]!);
/** The handbook's methods beyond the typings (iframe-functions.md) and EventEmitter's that apps call. */
const handbookMethods = [
  'getRoomsInfo',
  'getSupportedCommands',
  'getSupportedEvents',
  'getSessionId',
  'getSharedDocumentUrl',
  'isVisitor',
  'isAudioDisabled',
  'isParticipantsPaneOpen',
  'isStartSilent',
  'isP2pActive',
  'listBreakoutRooms',
  'captureCameraPicture',
  'getConnectionStats',
  'setMediaEncryptionKey',
  'setVirtualBackground',
  'toggleE2EE',
  'showPiP',
  'hidePiP',
  'sendExternalShareSignal',
  'on',
  'once',
  'off',
  'emit',
  'removeAllListeners',
  'listenerCount',
  'eventNames',
  'prependListener',
];
/** The handbook's commands (iframe-commands.md). */
const handbookCommands = (
  'displayName toggleAudio toggleVideo toggleShareScreen hangup sendChatMessage email avatarUrl password toggleLobby ' +
  'answerKnockingParticipant subject localSubject toggleChat toggleFilmStrip toggleTileView toggleRaiseHand ' +
  'toggleSubtitles toggleWhiteboard toggleCameraMirror toggleVirtualBackgroundDialog setTileView setAudioOnly ' +
  'toggleParticipantsPane toggleE2EE kickParticipant grantModerator initiatePrivateChat askToUnmute approveVideo ' +
  'cancelPrivateChat endConference autoAssignToBreakoutRooms stopShareVideo muteEveryone muteRemoteParticipant ' +
  'rejectParticipant toggleModeration pinParticipant setLargeVideoParticipant setVideoQuality sendEndpointTextMessage ' +
  'startRecording stopRecording showNotification hideNotification overwriteConfig overwriteNames setMeetingTimer ' +
  'addBreakoutRoom closeBreakoutRoom joinBreakoutRoom removeBreakoutRoom sendParticipantToRoom resizeFilmStrip ' +
  'resizeLargeVideo sendCameraFacingMode sendTones setAssumedBandwidthBps setBlurredBackground setFollowMe ' +
  'setMediaEncryptionKey setNoiseSuppressionEnabled setParticipantVolume setSecondScreen setSubtitles ' +
  'setVirtualBackground startShareVideo submitFeedback toggleCamera grantRecordingConsent showPiP hidePiP ' +
  'toggleNoiseSuppression'
).split(' ');

const service = 'https://meet.example.org';

/** The script on a stand-in host page: what it posts to its frame, what it logs, and the page's answers. */
function hostPage() {
  const posted: Record<string, unknown>[] = [];
  const warnings: string[] = [];
  let receive: ((event: unknown) => void) | null = null;
  const contentWindow = { postMessage: (message: Record<string, unknown>) => posted.push(message) };
  const iframe = { style: {}, contentWindow, setAttribute() {}, remove() {}, src: '' };
  const window: Record<string, unknown> = {
    location: { origin: 'https://app.example.org' },
    addEventListener: (name: string, listener: (event: unknown) => void) => {
      if (name === 'message') receive = listener;
    },
    removeEventListener() {},
    setTimeout: () => 1,
    clearTimeout() {},
  };
  const context = vm.createContext({
    window,
    document: {
      currentScript: { src: `${service}/external_api.js` },
      createElement: () => iframe,
      body: { appendChild() {} },
    },
    console: { warn: (text: string) => warnings.push(text), error: (text: string) => warnings.push(text) },
    URL,
    Element: class {},
    Promise,
  });
  vm.runInContext(script, context);
  const Api = window.JitsiMeetExternalAPI as new (domain: string, options: object) => Record<string, unknown>;
  const api = new Api('meet.example.org', { roomName: 'math-101' });
  const fromPage = (data: object) => receive!({ source: contentWindow, origin: service, data });
  fromPage({ videomeet: 'v1', kind: 'ready' });
  return { api, posted, warnings, fromPage };
}

t.test('every method of the embedded client exists and never throws', async (t) => {
  t.ok(typedMethods.length >= 40, `${typedMethods.length} methods read from the SDK's typings`);
  t.ok(typedMethods.includes('getAvailableDevices') && typedMethods.includes('startRecording'));
  const { api, posted, fromPage } = hostPage();
  const pending: Promise<unknown>[] = [];
  for (const name of new Set([...typedMethods, ...handbookMethods])) {
    t.equal(typeof api[name], 'function', `${name} is a method`);
    if (name === 'dispose') continue;
    let result: unknown;
    const args = name.startsWith('add') || name.startsWith('prepend') ? ['x', () => {}] : ['someone', 'audio'];
    t.doesNotThrow(() => {
      result = (api[name] as (...a: unknown[]) => unknown)(...args);
    }, `${name}() does not throw`);
    if (result instanceof Promise) pending.push(result);
  }
  // The page answers whatever reached it; every promise then settles, none rejects.
  for (const message of posted)
    if (message.kind === 'request') fromPage({ videomeet: 'v1', kind: 'response', id: message.id, result: 'answered' });
  const settled = await Promise.allSettled(pending);
  t.same(
    settled.filter((s) => s.status === 'rejected'),
    [],
    'no promise rejects',
  );
  const asked = posted.filter((m) => m.kind === 'request').map((m) => m.name);
  for (const name of ['getAvailableDevices', 'getCurrentDevices', 'isMultipleAudioInputSupported', 'setDevice'])
    t.ok(asked.includes(name), `${name} is answered by the page`);
  t.same(
    posted.filter((m) => m.name === 'setDevice').map((m) => m.args),
    [
      [{ kind: 'audioinput', label: 'someone', id: 'audio' }],
      [{ kind: 'audiooutput', label: 'someone', id: 'audio' }],
      [{ kind: 'videoinput', label: 'someone', id: 'audio' }],
    ],
    'set*Device(label, id) name the kind of device',
  );
  t.equal(
    await (api.isDeviceListAvailable as () => Promise<boolean>)(),
    true,
    'isDeviceListAvailable: true, as upstream',
  );
});

t.test('what the service has not answers as the embedded client does, and is said once', async (t) => {
  const { api, posted, warnings } = hostPage();
  const call = (name: string, ...args: unknown[]) => (api[name] as (...a: unknown[]) => unknown)(...args);
  t.same(await call('captureLargeVideoScreenshot'), { error: 'not supported' });
  t.equal(await call('isModerationOn', 'audio'), false);
  t.equal(await call('getLivestreamUrl'), undefined);
  t.same(await call('invite', [{ type: 'phone', number: '+1' }]), { error: {} }, 'invite resolves with its refusal');
  t.equal(call('getEmail', 'someone'), undefined, 'the synchronous ones answer at once');
  t.equal(call('pinParticipant', 'someone'), undefined);
  call('startRecording', { mode: 'file' });
  call('startRecording', { mode: 'file' });
  t.equal(warnings.filter((w) => w.includes('"startRecording"')).length, 1, 'said once, not each time');
  t.same(posted, [], 'nothing reaches the meeting');
});

t.test('every command of the embedded client is accepted: ours reach the page, the rest are said once', async (t) => {
  const { api, posted, warnings } = hostPage();
  const supported = api.getSupportedCommands as () => string[];
  for (const name of handbookCommands) {
    t.ok(supported().includes(name), `${name} is a supported command name`);
    t.doesNotThrow(() => (api.executeCommand as (n: string) => void)(name));
  }
  const sent = posted.filter((m) => m.kind === 'command').map((m) => m.name);
  for (const name of ['toggleChat', 'toggleTileView', 'setTileView', 'muteEveryone', 'toggleRaiseHand'])
    t.ok(sent.includes(name), `${name} reaches the page`);
  t.notOk(sent.includes('startRecording'), 'a command the service has not stays here');
  (api.executeCommand as (n: string) => void)('toggleWhiteboard');
  t.equal(warnings.filter((w) => w.includes('"toggleWhiteboard"')).length, 1, 'said once');
  t.notOk(
    warnings.some((w) => w.includes('is not a supported command')),
    'no real command is called unknown',
  );
});

t.test('errorOccurred reaches listeners flat, as the embedded client sends it', async (t) => {
  const { api, fromPage } = hostPage();
  const told: unknown[] = [];
  (api.addListener as (n: string, l: (d: unknown) => void) => void)('errorOccurred', (data) => told.push(data));
  // The gateway's refusal page posts its own shape; the script passes it on flat.
  fromPage({
    type: 'errorOccurred',
    error: { name: 'conference.authenticationRequired', message: 'expired', isFatal: true },
  });
  // The meeting page's events pass through as the page sends them (embed-events.ts makes them flat).
  fromPage({
    videomeet: 'v1',
    kind: 'event',
    name: 'errorOccurred',
    data: { name: 'conference.connectionError', message: 'lost', type: 'CONNECTION', isFatal: true },
  });
  t.same(told, [
    { name: 'conference.authenticationRequired', message: 'expired', type: 'CONNECTION', isFatal: true },
    { name: 'conference.connectionError', message: 'lost', type: 'CONNECTION', isFatal: true },
  ]);
  t.notOk((told[0] as Record<string, unknown>).error, 'no nested error');
});
