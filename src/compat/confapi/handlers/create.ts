import { randomBytes } from 'node:crypto';
import { xml, type CallContext, type Answer } from '../context.js';
import { failure } from '../errors.js';
import { internalIdOf, newRoomId, randomVoiceBridge } from '../meetings.js';
import { guestPolicies, type CompatMeeting, type GuestPolicy, type MeetingSettings } from '../model.js';
import { javaBoolean, meetingIdOf, nonNegativeInteger, strictBoolean, type Params } from '../params.js';
import { parsePresentations } from '../presentations.js';
import { javaDate, success } from '../xml.js';

/** Metadata names kept: `meta_` then a letter, letters, digits and hyphens (upstream's rule). */
const metaName = /^meta_([a-zA-Z][a-zA-Z0-9-]*)$/;

/** Create parameters accepted and stored as sent, beyond those with their own column. */
const extraParams = [
  'moderatorOnlyMessage',
  'bannerText',
  'bannerColor',
  'logo',
  'copyright',
  'loginURL',
  'autoStartRecording',
  'allowStartStopRecording',
  'allowModsToUnmuteUsers',
  'allowModsToEjectCameras',
  'endWhenNoModerator',
  'endWhenNoModeratorDelayInMinutes',
  'meetingLayout',
  'learningDashboardEnabled',
  'learningDashboardCleanupDelayInMinutes',
  'userCameraCap',
  'meetingCameraCap',
  'meetingExpireIfNoUserJoinedInMinutes',
  'meetingExpireWhenLastUserLeftInMinutes',
  'disabledFeatures',
  'disabledFeaturesExclude',
  'notifyRecordingIsOn',
  'presentationUploadExternalUrl',
  'presentationUploadExternalDescription',
  'meetingEndedURL',
  'preUploadedPresentation',
  'preUploadedPresentationName',
  'preUploadedPresentationOverrideDefault',
];

/** Free-text parameters that may span lines (and metadata): tabs and line breaks pass there, no other control character. */
const multiline = new Set(['welcome', 'moderatorOnlyMessage']);

/**
 * What a stored text must not hold: control characters (NUL among them: PostgreSQL's text cannot
 * hold it, SQLite would cut it short elsewhere), lone surrogates, and U+FFFD, which decoding puts
 * where the bytes were not UTF-8 (`%C0%80`, an overlong NUL, `%FF`).
 */
const notText = /[\p{Cc}\p{Cs}\uFFFD]/u;
const notMultilineText = /[^\P{Cc}\t\n\r]|[\p{Cs}\uFFFD]/u;

/** Refuses a free-text parameter holding what a stored text must not (validationError naming the parameter). */
function plainText(name: string, text: string): string {
  if ((multiline.has(name) || name.startsWith('meta_') ? notMultilineText : notText).test(text))
    throw failure('validationError', `${name} must be UTF-8 text without control characters (NUL included)`);
  return text;
}

function bounded(name: string, value: string | undefined, max: number): string {
  const text = value ?? '';
  if ([...text].length > max) throw failure('sizeError', `${name} must be at most ${max} characters long`);
  return plainText(name, text);
}

function password(name: string, value: string | undefined): string {
  const text = value ?? '';
  if ([...text].length > 64) throw failure('invalidPassword', `${name} must be at most 64 characters long`);
  return plainText(name, text);
}

/** Lower-case base32 (RFC 4648 letters, digits 2-7): nothing to escape in a URL, a form or XML. */
const passwordAlphabet = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * A password for a role create left out: 12 characters (60 bits) from node:crypto. Upstream
 * generates one too, and clients join with `password=<moderatorPW>` from the create answer,
 * so an empty one would let nobody in as moderator by password. 256 is a multiple of 32, so
 * `byte % 32` is unbiased.
 */
function generatedPassword(): string {
  return [...randomBytes(12)].map((byte) => passwordAlphabet[byte % 32]).join('');
}

/** The given password, or a generated one that differs from `other` (so the roles stay apart). */
function passwordOrGenerated(given: string, other: string): string {
  if (given !== '') return given;
  for (;;) {
    const made = generatedPassword();
    if (made !== other) return made;
  }
}

function guestPolicyOf(params: Params, fallback: GuestPolicy): GuestPolicy {
  const raw = params.get('guestPolicy');
  if (raw === undefined || raw === '') return fallback;
  const upper = raw.toUpperCase();
  if (!(guestPolicies as readonly string[]).includes(upper)) {
    throw failure('validationError', `guestPolicy must be one of ${guestPolicies.join(', ')}`);
  }
  return upper as GuestPolicy;
}

function logoutUrlOf(params: Params): string {
  const raw = bounded('logoutURL', params.get('logoutURL'), 2048);
  if (raw === '') return '';
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw failure('validationError', 'logoutURL must be an http or https URL');
  return raw;
}

function settingsOf(params: Params): MeetingSettings {
  const lockSettings: Record<string, boolean> = {};
  const extra: Record<string, string> = {};
  for (const [name, value] of params.entries()) {
    if (name.startsWith('lockSettings')) lockSettings[name] = javaBoolean(value);
  }
  for (const name of extraParams) {
    const value = params.get(name);
    if (value !== undefined) extra[name] = bounded(name, value, 2048);
  }
  return {
    welcome: bounded('welcome', params.get('welcome'), 5000),
    logoutURL: logoutUrlOf(params),
    muteOnStart: javaBoolean(params.get('muteOnStart')),
    webcamsOnlyForModerator: javaBoolean(params.get('webcamsOnlyForModerator')),
    lockSettings,
    extra,
  };
}

function metadataOf(params: Params): [string, string][] {
  const out: [string, string][] = [];
  const seen = new Set<string>();
  for (const [name, value] of params.entries()) {
    const match = metaName.exec(name);
    if (!match) continue;
    const key = match[1]!.toLowerCase();
    if (seen.has(key)) throw failure('validationError', `Metadata ${key} must not be sent more than once`);
    seen.add(key);
    out.push([key, bounded(name, value, 4096)]);
  }
  if (out.length > 100) throw failure('validationError', 'At most 100 metadata parameters are accepted');
  return out;
}

/** The create answer (also for a duplicate), in upstream element order. */
export function createAnswer(meeting: CompatMeeting, hasUserJoined: boolean, duplicate: boolean): string {
  return success({
    meetingID: meeting.meetingId,
    internalMeetingID: meeting.internalId,
    parentMeetingID: 'bbb-none',
    attendeePW: meeting.attendeePw,
    moderatorPW: meeting.moderatorPw,
    createTime: meeting.createTime,
    voiceBridge: meeting.voiceBridge,
    dialNumber: meeting.dialNumber,
    createDate: javaDate(meeting.createTime),
    hasUserJoined,
    duration: meeting.durationMin,
    hasBeenForciblyEnded: meeting.forciblyEnded,
    messageKey: duplicate ? 'duplicateWarning' : '',
    message: duplicate ? 'This conference was already in existence and may currently be in progress.' : '',
  });
}

export async function create(ctx: CallContext): Promise<Answer> {
  const { params, tenant, deps } = ctx;
  const meetingId = meetingIdOf(params);
  // Everything is validated before anything is written, the body included.
  const name = bounded('name', params.get('name'), 256) || meetingId;
  const givenAttendeePw = password('attendeePW', params.get('attendeePW'));
  const givenModeratorPw = password('moderatorPW', params.get('moderatorPW'));
  const record = strictBoolean('record', params.get('record'), deps.defaultRecord);
  const maxParticipants = nonNegativeInteger('maxParticipants', params.get('maxParticipants'), 0);
  const durationMin = nonNegativeInteger('duration', params.get('duration'), 0, 525_600);
  const dialNumber = bounded('dialNumber', params.get('dialNumber'), 64);
  const voiceBridgeParam = params.get('voiceBridge');
  if (voiceBridgeParam !== undefined && voiceBridgeParam !== '' && !/^\d{1,20}$/.test(voiceBridgeParam)) {
    throw failure('validationError', 'Voice bridge must be an integral value');
  }
  // Stored as sent with the other settings; checked here so the sweep can trust them.
  for (const name of ['meetingExpireIfNoUserJoinedInMinutes', 'meetingExpireWhenLastUserLeftInMinutes'])
    nonNegativeInteger(name, params.get(name), 0, 525_600);
  const guestPolicy = guestPolicyOf(params, deps.defaultGuestPolicy);
  const settings = settingsOf(params);
  const metadata = metadataOf(params);
  const presentations = ctx.xmlBody === null ? [] : await parsePresentations(ctx.xmlBody);

  // Idempotent: the meeting that exists is answered again, whatever this call says.
  // Its row and its engine room, both or neither (see CompatMeetings.create).
  const made = await deps.meetings.openOrCreate(tenant.id, meetingId, (): CompatMeeting => {
    // Generated only for a new meeting: a duplicate answers the passwords it already has.
    const moderatorPw = passwordOrGenerated(givenModeratorPw, givenAttendeePw);
    const attendeePw = passwordOrGenerated(givenAttendeePw, moderatorPw);
    const roomId = newRoomId();
    const createTime = deps.meetings.nextCreateTime();
    return {
      internalId: internalIdOf(meetingId, createTime),
      tenantId: tenant.id,
      meetingId,
      roomId,
      name,
      attendeePw,
      moderatorPw,
      createTime,
      voiceBridge: voiceBridgeParam || randomVoiceBridge(),
      dialNumber,
      durationMin,
      maxParticipants,
      record,
      guestPolicy,
      settings,
      metadata,
      presentations,
      engineMeetingId: null,
      startTime: null,
      endTime: null,
      forciblyEnded: false,
      endReason: null,
    };
  });
  const { meeting, existed } = made;
  return xml(createAnswer(meeting, meeting.engineMeetingId !== null, existed));
}
