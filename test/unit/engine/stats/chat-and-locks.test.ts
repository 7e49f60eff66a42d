import t from 'tap';
import { EngineError } from '../../../../src/engine/errors.js';
import { ChatLog, chatBounds, checkChatText } from '../../../../src/engine/live/chat-log.js';
import { MeetingLocks, mayAudio, mayVideo, unlocked } from '../../../../src/engine/live/meeting-locks.js';
import { asyncOf } from '../../../helpers/async-of.js';
import { FakeClock } from '../../../helpers/fake-clock.js';
import { MemoryLiveStore } from '../../../helpers/live-fixture.js';

t.test('chat text: 1 to 2000 characters, not blank, kept as typed', async (t) => {
  t.equal(checkChatText('<img src=x onerror=alert(1)>'), '<img src=x onerror=alert(1)>');
  t.equal(checkChatText('😀'.repeat(2000)), '😀'.repeat(2000), 'characters, not UTF-16 units');
  for (const bad of ['', ' \n\t', 'x'.repeat(2001), 42, null]) {
    t.throws(() => checkChatText(bad), { code: 'invalid_field', field: 'text' }, JSON.stringify(bad)?.slice(0, 20));
    t.throws(() => checkChatText(bad), EngineError);
  }
  t.equal(chatBounds.maxLength, 2000);
});

t.test('the chat log keeps the latest messages per meeting and writes every one through', async (t) => {
  const store = new MemoryLiveStore();
  const clock = new FakeClock();
  const log = new ChatLog(asyncOf(store), clock, 3);
  for (const text of ['1', '2', '3', '4']) await log.post('m1', { participantId: 'p', name: 'Ann' }, text);
  await log.post('m2', { participantId: null, name: 'System' }, 'other');
  t.same(
    (await log.latest('m1')).map((e) => e.text),
    ['2', '3', '4'],
  );
  t.equal(store.chat.length, 5);
  await t.rejects(
    log.post('m1', { participantId: 'p', name: 'Ann' }, ''),
    { code: 'invalid_field' },
    'a bad text rejects',
  );
  t.equal(store.chat.length, 5, 'nothing stored for a refused text');
  log.forget('m1');
  const fresh = new ChatLog(asyncOf(store), clock, 3);
  t.same(
    (await fresh.latest('m1')).map((e) => e.text),
    ['2', '3', '4'],
    'reloaded from the store',
  );
  t.match((await fresh.latest('m2'))[0], { participantId: null, name: 'System', at: clock.now().toISOString() });
});

t.test('locks bind participants only; video locks cover screen sharing', async (t) => {
  const mic = { ...unlocked, mic: true };
  t.equal(mayAudio('participant', mic), false);
  t.equal(mayAudio('moderator', mic), true);
  t.equal(mayVideo('participant', mic), true);
  t.equal(mayVideo('participant', { ...unlocked, cam: true }), false);
  t.equal(mayVideo('participant', { ...unlocked, camsModeratorsOnly: true }), false);
  t.equal(mayVideo('moderator', { mic: true, cam: true, camsModeratorsOnly: true }), true);
});

t.test('meeting locks are stored, cached and defaulted once', async (t) => {
  const store = new MemoryLiveStore();
  const locks = new MeetingLocks(asyncOf(store), new FakeClock());
  const meeting = { meetingId: 'm1', roomId: 'r1' };
  t.same(await locks.get(meeting), unlocked);
  t.equal(store.locks.size, 0, 'nothing stored for the default');
  locks.setDefaults(() => ({ cam: true }));
  t.same(await locks.get({ meetingId: 'm2', roomId: 'r2' }), { ...unlocked, cam: true });
  t.same(store.locks.get('m2'), { ...unlocked, cam: true }, 'the first settings are stored');
  await locks.set('m1', { mic: true, cam: false, camsModeratorsOnly: false });
  locks.forget('m1');
  t.same(await new MeetingLocks(asyncOf(store), new FakeClock()).get(meeting), {
    mic: true,
    cam: false,
    camsModeratorsOnly: false,
  });
});

t.test('a chat message or lock settings the store refuses reject; memory keeps what was stored', async (t) => {
  const store = new MemoryLiveStore();
  const clock = new FakeClock();
  const log = new ChatLog(asyncOf(store), clock);
  const locks = new MeetingLocks(asyncOf(store), clock);
  await log.post('m1', { participantId: 'p', name: 'Ann' }, 'kept');
  await locks.set('m1', { ...unlocked, mic: true });
  store.appendChat = () => {
    throw new Error('disk full');
  };
  store.saveLocks = () => {
    throw new Error('disk full');
  };
  const posting = log.post('m1', { participantId: 'p', name: 'Ann' }, 'lost');
  const locking = locks.set('m1', { ...unlocked, cam: true });
  await t.rejects(posting, { message: 'disk full' }, 'the post answers a rejection, not a throw');
  await t.rejects(locking, { message: 'disk full' }, 'so does the lock change');
  t.same(
    (await log.latest('m1')).map((e) => e.text),
    ['kept'],
  );
  t.same(await locks.get({ meetingId: 'm1', roomId: 'r1' }), { ...unlocked, mic: true });
});

t.test('locks on the asynchronous store: held answers from memory; a change during the first read wins', async (t) => {
  const store = new MemoryLiveStore();
  store.locks.set('m1', { ...unlocked, mic: true });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const port = asyncOf(store);
  // The first read of m1 is held until the test lets it go, as a slow store round trip would be.
  const slow = {
    getLocks: async (meetingId: string) => {
      await gate;
      return port.getLocks(meetingId);
    },
    saveLocks: port.saveLocks,
  };
  const locks = new MeetingLocks(slow, new FakeClock());
  locks.setDefaults(() => ({ cam: true }));
  const meeting = { meetingId: 'm1', roomId: 'r1' };
  t.same(locks.held(meeting), { ...unlocked, cam: true }, 'before any read: what a first get would give a new meeting');
  const reading = locks.get(meeting);
  const changing = locks.set('m1', { ...unlocked, camsModeratorsOnly: true });
  release();
  t.same(await reading, { ...unlocked, mic: true }, 'the first read gives the stored settings');
  t.same(await changing, { ...unlocked, camsModeratorsOnly: true });
  t.same(locks.held(meeting), { ...unlocked, camsModeratorsOnly: true }, 'held: the change, from memory');
  t.same(
    store.locks.get('m1'),
    { ...unlocked, camsModeratorsOnly: true },
    'and the store has the change, not the read',
  );
  t.same(await locks.get(meeting), { ...unlocked, camsModeratorsOnly: true }, 'a hit in memory');
});
