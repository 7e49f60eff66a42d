// A gesture that admits everyone waiting (Admit all, the switch turned off, a promotion under
// until_moderator) takes the room's turn like a single decision: with a moderator's refusal of the
// same person at the same moment, she ends in exactly one state, and her poll, the answers and
// the timeline say the same (issue 34 point 2: the decisions await the store, so they could interleave).
import t from 'tap';
import { ModeratorSuccession } from '../../../../src/engine/meetings/moderator-succession.js';
import { asyncOf } from '../../../helpers/async-of.js';
import { Fixture, api, arrive, claims } from '../../../helpers/engine-fixture.js';

type Everyone = (f: Fixture) => Promise<unknown>;

/** A room under until_moderator with Pat present and no moderator, and Early waiting. */
async function scene() {
  const f = new Fixture();
  f.room({ waitingRoom: 'all', waitingRoomMode: 'until_moderator', moderatorSuccession: false });
  const mod = await f.waiting.start(arrive('r1', 'Mo', { claims: claims('moderator') }));
  await f.waiting.start(arrive('r1', 'Pat', { claims: claims('participant', 'integration') }));
  if (mod.status !== 'joined') throw new Error('the moderator did not enter');
  await f.meetings.leave(mod.participant.participantId);
  const early = await f.knock('Early', 'r1', { claims: claims('participant', 'link'), clientKey: '198.51.100.1' });
  return { f, early };
}

const gestures: Record<string, Everyone> = {
  'admit all': (f) => f.waiting.admitAll('r1', api()),
  'the waiting room switched off': (f) => f.waiting.disableWaitingRoom('r1', api()),
  // The gateway's settings gave the room succession later: Pat is promoted, and a moderator's arrival lets everyone in.
  'a promotion': (f) => {
    f.store.rooms.set('r1', { ...f.store.rooms.get('r1')!, moderatorSuccession: true });
    return new ModeratorSuccession(f.meetings, asyncOf(f.store)).settle('r1');
  },
};

for (const [name, everyone] of Object.entries(gestures)) {
  for (const first of ['everyone', 'refuse'] as const) {
    t.test(`${name} and a refusal of the same person at once (${first} asked first): one outcome`, async (t) => {
      const { f, early } = await scene();
      const refuse = () => f.waiting.refuse('r1', early.requestId, false, api('lms'));
      const [a, b] = first === 'everyone' ? [everyone(f), refuse()] : [refuse(), everyone(f)];
      const [everyoneDone, refused] = (
        first === 'everyone' ? await Promise.allSettled([a, b]) : (await Promise.allSettled([a, b])).reverse()
      ) as [PromiseSettledResult<unknown>, PromiseSettledResult<unknown>];
      t.equal(everyoneDone.status, 'fulfilled', 'the gesture for everyone is answered');

      const status = (await f.waiting.poll('r1', early.secret))?.status;
      const kinds = (await f.kinds()).filter((k) => k === 'admit_all' || k === 'refuse');
      const entered = f.meetings.present('r1').some((p) => p.name === 'Early');
      const request = f.store.requests.get(early.requestId);
      if (refused.status === 'fulfilled') {
        t.equal(status, 'refused', 'refused: her page is told so');
        t.equal(request?.state, 'refused', 'and the store says refused');
        t.notOk(entered, 'she did not enter');
        t.same(kinds, ['refuse'], 'the timeline records the refusal only');
      } else {
        t.match(refused.reason, { code: 'request_not_waiting' }, 'the refusal is told she was admitted already');
        t.equal(status, 'admitted', 'admitted: her page is told so');
        t.equal(request?.state, 'admitted', 'and the store says admitted');
        t.ok(entered, 'she is present');
        t.same(kinds, ['admit_all'], 'the timeline records the admission only');
      }
    });
  }
}
