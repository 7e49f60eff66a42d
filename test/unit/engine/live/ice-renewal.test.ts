// Issue 28 point 13, the engine's part: TURN credentials live an hour and are renewed over the
// live connection only while she stays (when her socket opens, then at three quarters of each
// lifetime, on the hub's scheduler); who left or was removed gets none, and her timer ends.
import t from 'tap';
import type { IceCredentials } from '../../../../src/engine/live/ice-renewal.js';
import { LiveFixture } from '../../../helpers/live-fixture.js';

const hour = 3_600_000;

/** Servers whose TURN user name says when it expires, as coturn's use-auth-secret reads it. */
function credentials(f: () => LiveFixture, minted: string[] = []): IceCredentials {
  return {
    lifetimeMs: hour,
    serversFor(participantId) {
      const expiry = Math.floor((f().engine.clock.now().getTime() + hour) / 1000);
      minted.push(participantId);
      return [
        { urls: ['stun:stun.example.org'] },
        { urls: ['turn:turn.example.org'], username: `${expiry}:${participantId}`, credential: 'x' },
      ];
    },
  };
}

const expiryOf = (message: { ice_servers: readonly { username?: string }[] } | undefined): number =>
  Number(message?.ice_servers[1]?.username?.split(':')[0]);

t.test('fresh servers when the socket opens, then at three quarters of each lifetime while she stays', async (t) => {
  let fixture!: LiveFixture;
  const f = (fixture = new LiveFixture({ ice: credentials(() => fixture) }));
  const ann = await f.connect(await f.enter('Ann'));
  const nowSecs = () => Math.floor(f.engine.clock.now().getTime() / 1000);
  t.equal(ann.conn.of('ice_servers').length, 1, 'at once');
  t.equal(expiryOf(ann.conn.last('ice_servers')), nowSecs() + 3600, 'valid one hour');
  f.timers.advance(0.75 * hour - 1);
  t.equal(ann.conn.of('ice_servers').length, 1, 'nothing before three quarters');
  f.timers.advance(1);
  t.equal(ann.conn.of('ice_servers').length, 2, 'renewed at 45 minutes');
  t.equal(expiryOf(ann.conn.last('ice_servers')), nowSecs() + 3600, 'for another hour from now');
  f.timers.advance(0.75 * hour);
  t.equal(ann.conn.of('ice_servers').length, 3, 'and again');
  const bob = await f.connect(await f.enter('Bob'));
  t.equal(bob.conn.of('ice_servers').length, 1, 'each connection its own');
  t.notOk(
    ann.conn
      .of('ice_servers')
      .some((m) => m.ice_servers.some((s) => s.username?.endsWith(bob.participant.participantId))),
    "nobody gets another's",
  );
});

t.test('removed or left: no renewal, and no timer left behind', async (t) => {
  let fixture!: LiveFixture;
  const f = (fixture = new LiveFixture({ ice: credentials(() => fixture) }));
  const mod = await f.connect(await f.enter('Mod', 'r1', true));
  const ann = await f.connect(await f.enter('Ann'));
  const bob = await f.connect(await f.enter('Bob'));
  mod.send({ type: 'remove', participant_id: ann.participant.participantId });
  f.disconnect(ann);
  f.disconnect(bob);
  f.timers.advance(10 * hour);
  t.equal(ann.conn.of('ice_servers').length, 1, 'the removed one: only the first');
  t.equal(bob.conn.of('ice_servers').length, 1, 'the one who closed her page: only the first');
  t.equal(mod.conn.of('ice_servers').length, 1 + Math.floor(10 / 0.75), 'the one who stays: every 45 minutes');
  f.disconnect(mod);
  f.timers.advance(10 * hour);
  t.equal(f.timers.size, 0, 'no renewal timer outlives the sockets');
});

t.test('a reconnect gets fresh servers at once; a hub without TURN sends none', async (t) => {
  let fixture!: LiveFixture;
  const f = (fixture = new LiveFixture({ ice: credentials(() => fixture) }));
  const ann = await f.enter('Ann');
  const first = await f.connect(ann);
  f.timers.advance(0.5 * hour);
  f.disconnect(first);
  const again = await f.connect(ann);
  t.equal(again.conn.of('ice_servers').length, 1, 'a page reloaded late in the last credential still gets a fresh one');

  const plain = new LiveFixture({ ice: { lifetimeMs: hour, serversFor: () => null } });
  const bob = await plain.connect(await plain.enter('Bob'));
  t.equal(bob.conn.of('ice_servers').length, 0, 'no TURN: nothing to renew');
  t.equal(plain.timers.size, 0, 'and no timer');
});
