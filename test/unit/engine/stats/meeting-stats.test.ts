import t from 'tap';
import { MeetingStats } from '../../../../src/engine/stats/meeting-stats.js';
import { FakeClock } from '../../../helpers/fake-clock.js';
import { MemoryLiveStore } from '../../../helpers/live-fixture.js';
import { asyncOf } from '../../../helpers/async-of.js';

function setup() {
  const clock = new FakeClock();
  const store = new MemoryLiveStore();
  return { clock, store, stats: new MeetingStats(asyncOf(store), store, clock) };
}

t.test('talk time is the sum of speaking intervals while audio is on', async (t) => {
  const { clock, stats } = setup();
  await stats.joined('m1', 'ann');
  t.equal(await stats.speaking('m1', 'ann', true), false, 'no speaking without audio');
  await stats.state('m1', 'ann', { audio: true, video: false });
  t.equal(await stats.speaking('m1', 'ann', true), true);
  t.equal(await stats.speaking('m1', 'ann', true), false, 'already speaking');
  clock.advance(1_200);
  t.match((await stats.of('m1'))[0], { talking: true, talkTimeMs: 1_200 }, 'a running interval counts up to now');
  t.equal(await stats.speaking('m1', 'ann', false), true);
  t.equal(await stats.speaking('m1', 'ann', false), false, 'already silent');
  clock.advance(10_000);
  await stats.speaking('m1', 'ann', true);
  clock.advance(800);
  const lastAt = clock.now().toISOString();
  await stats.state('m1', 'ann', { audio: false, video: false });
  t.match(
    (await stats.of('m1'))[0],
    { talking: false, talkTimeMs: 2_000, lastTalkAt: lastAt, audio: false },
    'muting ends the interval',
  );
});

t.test('webcam intervals follow video on and off; chat is counted', async (t) => {
  const { clock, stats } = setup();
  await stats.state('m1', 'ann', { audio: false, video: true });
  const start1 = clock.now().toISOString();
  clock.advance(60_000);
  await stats.state('m1', 'ann', { audio: true, video: true });
  await stats.state('m1', 'ann', { audio: true, video: true });
  await stats.state('m1', 'ann', { audio: true, video: false });
  const end1 = clock.now().toISOString();
  clock.advance(1_000);
  await stats.state('m1', 'ann', { audio: true, video: true });
  const start2 = clock.now().toISOString();
  await stats.chat('m1', 'ann');
  await stats.chat('m1', 'ann');
  await stats.chat('m1', 'bob');
  const [ann, bob] = await stats.of('m1');
  t.same(ann?.webcams, [
    { startedAt: start1, endedAt: end1 },
    { startedAt: start2, endedAt: null },
  ]);
  t.match(ann, { video: true, audio: true, chatMessages: 2 });
  t.match(bob, { participantId: 'bob', chatMessages: 1, webcams: [] });
  t.same(await stats.of('other'), []);
});

t.test('a disconnect or the end of the meeting settles everything', async (t) => {
  const { clock, stats } = setup();
  await stats.state('m1', 'ann', { audio: true, video: true });
  await stats.speaking('m1', 'ann', true);
  await stats.state('m1', 'bob', { audio: true, video: true });
  clock.advance(3_000);
  await stats.disconnected('m1', 'ann');
  await stats.disconnected('m1', 'nobody');
  await stats.disconnected('other', 'bob');
  t.match((await stats.of('m1'))[0], {
    audio: false,
    video: false,
    talking: false,
    talkTimeMs: 3_000,
    webcams: [{ endedAt: clock.now().toISOString() }],
  });
  t.match((await stats.of('m1'))[1], { video: true }, 'a disconnect of another meeting does not touch it');
  clock.advance(1_000);
  await stats.meetingEnded('m1');
  t.match((await stats.of('m1'))[1], { video: false, webcams: [{ endedAt: clock.now().toISOString() }] });
  await stats.disconnected('m1', 'ann');
  t.equal((await stats.of('m1'))[0]?.talkTimeMs, 3_000, 'settling twice changes nothing');
});

t.test('after a crash, intervals left running end at the restart', async (t) => {
  const { clock, store, stats } = setup();
  await stats.state('m1', 'ann', { audio: true, video: true });
  await stats.speaking('m1', 'ann', true);
  await stats.chat('m1', 'ann');
  clock.advance(2_000);
  const restarted = new MeetingStats(asyncOf(store), store, clock);
  const writes = store.writes;
  t.match(
    (await restarted.of('m1'))[0],
    { audio: true, video: true, talking: true },
    'constructing and reading writes nothing',
  );
  t.equal(store.writes, writes);
  t.equal(await restarted.settleUnfinished(), 1, 'the serving daemon settles what was left running');
  t.equal(await restarted.settleUnfinished(), 0);
  t.match((await restarted.of('m1'))[0], {
    audio: false,
    video: false,
    talking: false,
    talkTimeMs: 2_000,
    chatMessages: 1,
  });
  t.equal((await restarted.of('m1'))[0]?.webcams[0]?.endedAt, clock.now().toISOString());
  await restarted.chat('m1', 'ann');
  t.equal((await restarted.of('m1'))[0]?.chatMessages, 2, 'counting goes on from the stored value');
});

t.test('a clock going backwards never makes talk time negative', async (t) => {
  const { clock, stats } = setup();
  await stats.state('m1', 'ann', { audio: true, video: false });
  await stats.speaking('m1', 'ann', true);
  clock.advance(-5_000);
  t.equal((await stats.of('m1'))[0]?.talkTimeMs, 0);
  await stats.speaking('m1', 'ann', false);
  t.equal((await stats.of('m1'))[0]?.talkTimeMs, 0);
});

t.test(
  "with a group commit, a chat message's count is on disk at once, after the writes queued before it",
  async (t) => {
    const clock = new FakeClock();
    const store = new MemoryLiveStore();
    const queued: (() => Promise<number>)[] = [];
    // The group's turn never comes unless the test runs it: what is on disk is what was written now.
    const stats = new MeetingStats(asyncOf(store), store, clock, (run) => void queued.push(run));
    await stats.joined('m1', 'ann');
    await stats.state('m1', 'ann', { audio: true, video: false });
    t.equal(store.getStats('ann'), null, 'media state waits for the group');
    await stats.chat('m1', 'ann');
    t.match(
      store.getStats('ann'),
      { chatMessages: 1, audio: true },
      'the chat count commits now (the room hears the message next), with the state queued before it',
    );
    for (const run of queued.splice(0)) await run();
    t.match(
      store.getStats('ann'),
      { chatMessages: 1, audio: true },
      'the group, when it runs, writes no older copy over it',
    );
  },
);
