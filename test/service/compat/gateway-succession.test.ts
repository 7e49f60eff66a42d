// Issue 14 point 8 against a real daemon: in an open room (COMPAT_JITSI_ALLOW_ANONYMOUS=true) the
// first arrival is moderator, the second is not; the first leaves, the second becomes moderator,
// is told over the live connection and may now do what she was refused before. Nothing a
// participant sends (a session token claiming a role, a live message) makes her a moderator.
// On both stores, SQLite and PostgreSQL (issue 34 point 5: service-stores.ts).
import { rmSync } from 'node:fs';
import { compatAppFor } from '../../helpers/compat-app.js';
import { roomAndToken, type CompatServer } from '../../helpers/compat.js';
import { tempDataDir } from '../../helpers/daemon.js';
import { onEachServiceStore } from '../../helpers/service-stores.js';
import { connectLive, waitingUntil } from '../../helpers/live.js';
import { admittedSession, asSession, Browser, claimsOf, waitingApi, type Session } from '../../helpers/waiting.js';

const frontend = 'http://frontend.test';

/** GET /videoconf/{room} without a token, following the 302 to the join token `t`. */
async function arrive(
  daemon: CompatServer,
  room: string,
  displayName: string,
): Promise<{ roomId: string; token: string }> {
  const response = await fetch(
    `${daemon.compatUrl}/videoconf/${encodeURIComponent(room)}?${new URLSearchParams({ displayName })}`,
    {
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    },
  );
  if (response.status !== 302) throw new Error(`videoconf answered ${response.status}: ${await response.text()}`);
  const { roomId, token } = roomAndToken(response.headers.get('location')!);
  return { roomId, token };
}

onEachServiceStore(
  'open room: first moderator, second a guest who waits; the first leaves and the second takes over',
  async (t, store) => {
    const dataDir = tempDataDir('meet-succession-');
    const daemon = await compatAppFor(t, {
      store,
      env: {
        SERVICE_DATA_DIR: dataDir,
        COMPAT_JITSI_ALLOW_ANONYMOUS: 'true',
        // Anonymous arrivals count as guests: with a moderator present they wait.
        COMPAT_JITSI_WAITING_ROOM: 'guests',
        COMPAT_FRONTEND_URL: frontend,
      },
      listen: true,
    });
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

    // Ann: nobody is there, so she enters at once as the moderator (nobody could admit her).
    const a = await arrive(daemon, 'Open Hall', 'Ann');
    t.equal(claimsOf(a.token).role, 'participant', 'the join token itself says participant');
    const annBrowser = new Browser(daemon, a.roomId);
    const annStart = await annBrowser.start({ name: 'Ann', t: a.token });
    t.equal(annStart.body?.status, 'joined', 'the first arrival does not wait');
    const ann = admittedSession(annStart, 'Ann');
    t.equal(annStart.body?.role, 'moderator', 'the first arrival is the moderator');
    const annLive = await connectLive(daemon, a.roomId, ann.session);
    t.equal(annLive.welcome.self.role, 'moderator', 'welcome says so');

    // Bob: a moderator is present, so he is a bare-link guest under scope guests: he knocks.
    const b = await arrive(daemon, 'open hall', 'Bob');
    t.equal(b.roomId, a.roomId, 'the same room (case-folded)');
    const bobBrowser = new Browser(daemon, b.roomId);
    t.same(
      (await bobBrowser.start({ name: 'Bob', t: b.token })).body,
      { status: 'knock' },
      'the second arrival must knock',
    );
    t.equal((await bobBrowser.knock({ name: 'Bob', note: '', t: b.token })).status, 202, 'and waits');
    const list = await waitingUntil(annLive.client, (w) => w.requests.length === 1);
    t.equal(list.requests[0]!.name, 'Bob', 'Ann sees him in her waiting list');
    t.equal(
      (await asSession.admit(daemon, a.roomId, ann.session, { request_id: list.requests[0]!.request_id })).status,
      200,
      'Ann admits him',
    );
    const polled = await bobBrowser.poll();
    t.equal(polled.body?.status, 'admitted');
    const bob: Session = admittedSession(polled, 'Bob');
    const bobLive = await connectLive(daemon, b.roomId, bob.session);
    t.equal(bobLive.welcome.self.role, 'participant', 'the second arrival is not a moderator');
    t.match(
      bobLive.welcome.participants.find((p) => p.participant_id === ann.participantId),
      { role: 'moderator' },
    );

    // Before: Bob's moderator gestures are refused, whatever he sends.
    const refusedList = await asSession.list(daemon, b.roomId, bob.session);
    t.equal(refusedList.status, 403, 'waiting-list refused');
    t.equal(refusedList.body?.error?.code, 'not_moderator');
    bobLive.client.send({ type: 'lock', locks: { mic: true, cam: false, cams_moderators_only: false } });
    t.equal((await bobLive.client.next('error')).code, 'not_moderator', 'a lock over the live connection is refused');
    bobLive.client.send({ type: 'role', participant_id: bob.participantId, role: 'moderator' });
    t.equal(
      (await bobLive.client.next('error')).code,
      'invalid_message',
      'a role message from a client is no message at all',
    );

    // A session token that claims the moderator role, even one signed with the daemon's own key
    // (which no participant has), changes nothing: authority is the participant record.
    const real = claimsOf(bob.session);
    // The daemon's own token service: its key is in the data directory or in PostgreSQL.
    const claimingModerator = await daemon.services.tokens.signSession(
      {
        room: String(real.room),
        meeting: String(real.meeting),
        participant: bob.participantId,
        role: 'moderator',
        name: 'Bob',
      },
      600,
    );
    t.equal(claimsOf(claimingModerator).role, 'moderator');
    t.equal(
      (await asSession.list(daemon, b.roomId, claimingModerator)).status,
      403,
      'a session claiming moderator is still refused',
    );
    t.equal(
      (await asSession.disable(daemon, b.roomId, claimingModerator)).status,
      403,
      'and so is disabling the waiting room',
    );
    const [head, , signature] = bob.session.split('.');
    const edited = `${head}.${Buffer.from(JSON.stringify({ ...real, role: 'moderator' })).toString('base64url')}.${signature}`;
    t.equal((await asSession.list(daemon, b.roomId, edited)).status, 401, 'an edited session token is no session');

    // Ann leaves: Bob, the one present longest, is promoted and told.
    t.equal((await asSession.leave(daemon, a.roomId, ann.session)).status, 204);
    await bobLive.client.next('participant_left', (m) => m.participant_id === ann.participantId);
    const role = await bobLive.client.next('role');
    t.same(
      role,
      { type: 'role', participant_id: bob.participantId, role: 'moderator' },
      'Bob hears he is the moderator now',
    );
    t.same(
      (await bobLive.client.next('waiting_list')).requests,
      [],
      'and gets the whole waiting list as a moderator does',
    );

    // After: the same session, unchanged, may now do what was refused.
    const allowed = await asSession.list(daemon, b.roomId, bob.session);
    t.equal(allowed.status, 200, 'waiting-list answers 200');
    t.same(allowed.body, []);
    bobLive.client.send({ type: 'lock', locks: { mic: true, cam: false, cams_moderators_only: false } });
    t.match((await bobLive.client.next('locks')).locks, { mic: true }, 'his lock is applied');

    // Cid arrives: Bob is a moderator present, so Cid is a guest who waits, and Bob sees him.
    const c = await arrive(daemon, 'Open Hall', 'Cid');
    const cidBrowser = new Browser(daemon, c.roomId);
    t.equal((await cidBrowser.knock({ name: 'Cid', note: '', t: c.token })).status, 202, 'the next arrival waits');
    const cidRequest = await waitingUntil(bobLive.client, (w) => w.requests.some((r) => r.name === 'Cid'));
    t.equal(
      (await asSession.admit(daemon, b.roomId, bob.session, { request_id: cidRequest.requests[0]!.request_id })).status,
      200,
      'Bob admits him',
    );
    const cid = admittedSession(await cidBrowser.poll(), 'Cid');
    const cidLive = await connectLive(daemon, c.roomId, cid.session);
    t.equal(cidLive.welcome.self.role, 'participant');
    t.match(
      cidLive.welcome.participants.find((p) => p.participant_id === bob.participantId),
      { role: 'moderator' },
      'Cid sees Bob as moderator',
    );

    const timeline = await waitingApi.timeline(daemon, a.roomId);
    t.match(
      (timeline.body.entries as { kind: string; subject: { name: string } | null }[]).filter((e) =>
        e.kind.startsWith('moderator'),
      ),
      [
        { kind: 'moderator_arrived', subject: { name: 'Ann' } },
        { kind: 'moderator_promoted', subject: { name: 'Bob' } },
      ],
      'the timeline records the arrival and the promotion',
    );

    await Promise.all([annLive.client.close(), bobLive.client.close(), cidLive.client.close()]);
  },
);
