/**
 * The one table of the meeting API's failures. Every key always answers with the same
 * message, as `<returncode>FAILED</returncode><messageKey/><message/>` with HTTP 200
 * (learningDashboard, a JSON call, answers the same pair as JSON). Clients key on
 * `messageKey`; the keys follow the upstream API where one exists.
 */
export const confapiErrors = {
  checksumError: 'Checksums do not match',
  unsupportedRequest: 'This request is not supported.',
  unsupportedContentType: 'POST request Content-Type is missing or unsupported',
  requestTooLarge: 'The request is too large.',
  validationError: 'Request not recognized',
  missingParamMeetingID: 'You must specify a meeting ID for the meeting.',
  invalidMeetingIdentifier: 'A meeting with that ID does not exist',
  sizeError: 'A parameter is too long.',
  invalidPassword: 'You must supply a valid password for this meeting.',
  missingParamFullName: 'You must provide your name',
  mismatchCreateTimeParam: 'The createTime parameter submitted mismatches with the current meeting.',
  meetingForciblyEnded: 'You can not join a meeting that has already been forcibly ended',
  guestDeniedAccess: "You have been denied access to this meeting based on the meeting's guest policy",
  maxParticipantsReached: 'The number of participants allowed for this meeting has been reached.',
  notFound: 'A meeting with that ID does not exist',
  missingParamMessage: 'You must specify a message.',
  missingParamRecordID: 'You must specify a recordID.',
  missingParamPublish: 'You must specify a publish value true or false.',
  recordingNotFound: 'We could not find recordings',
  missingToken: 'You must provide a session token',
  sessionMissing: 'Invalid session token',
  sessionMeetingNotFound: 'Meeting not found',
  accessDenied: 'Access denied',
  internalError: 'An internal error occurred; it was logged.',
  databaseUnavailable: 'The service cannot reach its database now; try again shortly.',
  meetingElsewhere: 'Another node of this cluster serves this meeting now; try again shortly.',
} as const;

export type ConfapiErrorKey = keyof typeof confapiErrors;

/** The wire key of a table entry, where two entries share one upstream key. */
const wireKeys: Partial<Record<ConfapiErrorKey, string>> = {
  recordingNotFound: 'notFound',
  sessionMeetingNotFound: 'notFound',
};

export class ConfapiError extends Error {
  override readonly name = 'ConfapiError';
  readonly messageKey: string;

  /** `detail` replaces the table's message when a more precise sentence helps (validation). */
  constructor(
    readonly key: ConfapiErrorKey,
    detail?: string,
  ) {
    super(detail ?? confapiErrors[key]);
    this.messageKey = wireKeys[key] ?? key;
  }
}

export function failure(key: ConfapiErrorKey, detail?: string): ConfapiError {
  return new ConfapiError(key, detail);
}
