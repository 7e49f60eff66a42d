// The part of bigbluebutton-js the client-library test drives (the package ships no types).
// Answers are the library's own parse of the XML: their fields differ per call, hence `any`.
declare module 'bigbluebutton-js' {
  /** A signed call URL, as the library builds it. */
  type CallUrl = string;
  interface Api {
    administration: {
      create(name: string, meetingID: string, options?: Record<string, unknown>): CallUrl;
      join(fullName: string, meetingID: string, password: string, options?: Record<string, unknown>): CallUrl;
      end(meetingID: string, password: string): CallUrl;
    };
    monitoring: {
      isMeetingRunning(meetingID: string): CallUrl;
      getMeetingInfo(meetingID: string): CallUrl;
      getMeetings(): CallUrl;
    };
  }
  const bbb: {
    api(url: string, secret: string): Api;
    http(url: CallUrl): Promise<Record<string, any>>;
  };
  export default bbb;
}
