// Issue 12: a widely used client library of the meeting API, unchanged, against a real daemon
// under both paths: it signs with SHA-1 over its own encoding, parses the XML itself, and gets
// the generated passwords and join tokens it reads.
import bbb from 'bigbluebutton-js';
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';

const secret = 'client-library-secret-7a3f';

t.test('bigbluebutton-js drives a meeting from create to end under /bigbluebutton and /confapi', async (t) => {
  // Listening: the library sends its requests with its own HTTP client (axios).
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret }, listen: true });
  for (const base of ['/bigbluebutton', '/confapi']) {
    t.test(base, async (t) => {
      const api = bbb.api(`${d.compatUrl}${base}`, secret);
      const meetingID = `algebra${base.replace('/', '-')}`;
      const created = await bbb.http(api.administration.create('Algebra', meetingID, { record: false }));
      t.equal(created.returncode, 'SUCCESS', 'create');
      t.match(String(created.moderatorPW), /^[a-z2-7]{12}$/, 'a generated moderator password');
      t.not(String(created.moderatorPW), String(created.attendeePW), 'and a different attendee one');

      const joined = await bbb.http(
        api.administration.join('Mia Teacher', meetingID, String(created.moderatorPW), {
          redirect: false,
          userID: 'moodle-7',
        }),
      );
      t.equal(joined.returncode, 'SUCCESS', 'join with the generated moderator password');
      t.ok(joined.auth_token && joined.session_token, 'the client reads both tokens');
      t.match(String(joined.url), /\/room\/cf-[0-9a-f]{32}\?t=/, 'a join link');

      const running = await bbb.http(api.monitoring.isMeetingRunning(meetingID));
      t.equal(running.returncode, 'SUCCESS');
      t.equal(String(running.running), 'false', 'nobody entered yet');
      const info = await bbb.http(api.monitoring.getMeetingInfo(meetingID));
      t.equal(info.meetingName, 'Algebra');
      const list = await bbb.http(api.monitoring.getMeetings());
      t.ok(
        list.meetings.some((m: { meetingID: string }) => m.meetingID === meetingID),
        'listed by getMeetings',
      );

      const ended = await bbb.http(api.administration.end(meetingID, String(created.moderatorPW)));
      t.equal(ended.returncode, 'SUCCESS', 'end with the moderator password');
      const wrongSecret = bbb.api(`${d.compatUrl}${base}`, 'not-the-secret');
      t.equal(
        (await bbb.http(wrongSecret.monitoring.getMeetings())).messageKey,
        'checksumError',
        'another secret is refused',
      );
    });
  }
});
