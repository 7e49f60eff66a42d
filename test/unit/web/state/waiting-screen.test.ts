// Issue 30 point 3: the waiting screen as a reducer (src/web/state/waiting-screen.ts): her
// knock, the polls' answers (admission, refusal, a lost place, a dropped network), Leave, and
// what the screen shows in each status, without a browser.
import t from 'tap';
import type { PollAnswer } from '../../../../src/web/api.js';
import {
  elapsed,
  knockAnswered,
  knocked,
  mayPoll,
  OnePoll,
  openScreen,
  polled,
  pollsEnd,
  retryDelayMs,
  screenOf,
  withdrawn,
  type WaitingScreenState,
} from '../../../../src/web/state/waiting-screen.js';

const fresh = openScreen('fresh', 0).state;
const waiting: WaitingScreenState = knockAnswered(knocked(fresh, 5000), {
  ok: true,
  body: { status: 'waiting' },
}).state;
const ok = (body: PollAnswer) => ({ ok: true, body }) as const;
const failed = (status: number) => ({ ok: false, error: { status } }) as const;

t.test(
  'a page opens ready, or waiting (a reload found her request, polls at once), or with her place lost',
  async (t) => {
    t.same(openScreen('fresh', 1).state, { status: 'ready', knockedAt: 1, polling: false });
    t.same(openScreen('fresh', 1).effects, [], 'nothing said before she acts');
    t.same(openScreen('resumed', 1).state, { status: 'waiting', knockedAt: 1, polling: true });
    t.same(openScreen('lost', 1), {
      state: { status: 'lost', knockedAt: 1, polling: false },
      effects: [{ do: 'status' }],
    });
  },
);

t.test(
  'her knock: waiting with polls and the focus on the card; joined at once; barred; or an error said',
  async (t) => {
    t.same(waiting, { status: 'waiting', knockedAt: 5000, polling: true }, 'the time waited counts from the knock');
    t.same(knockAnswered(fresh, { ok: true, body: { status: 'waiting' } }).effects, [
      { do: 'status' },
      { do: 'focus', on: 'card' },
    ]);
    t.same(knockAnswered(fresh, { ok: true, body: { status: 'joined', session: 's1' } }), {
      state: fresh,
      effects: [{ do: 'enter', session: 's1' }],
    });
    const barred = knockAnswered(fresh, { ok: false, error: { code: 'barred', retryAfter: null, field: null } });
    t.same([barred.state.status, barred.effects], ['barred', [{ do: 'status' }]]);
    const limited = knockAnswered(fresh, {
      ok: false,
      error: { code: 'too_many_requests', retryAfter: 7, field: null },
    });
    t.same(
      limited,
      { state: fresh, effects: [{ do: 'error', code: 'too_many_requests', retryAfter: 7, field: null }] },
      'the form stays',
    );
  },
);

t.test('admission: the polls stop and she goes in', async (t) => {
  const step = polled(waiting, ok({ status: 'admitted', session: 's2' }));
  t.same(step.state, { status: 'admitted', knockedAt: 5000, polling: false });
  t.same(step.effects, [{ do: 'status' }, { do: 'enter', session: 's2' }]);
});

t.test('refused, expired or barred: the polls stop and the status is said once', async (t) => {
  for (const status of ['refused', 'expired', 'barred'] as const) {
    const body = status === 'barred' ? ({ status } as const) : ({ status, retry: true } as const);
    const step = polled(waiting, ok(body));
    t.same([step.state.status, step.state.polling, step.effects], [status, false, [{ do: 'status' }]], status);
  }
});

t.test('still waiting: nothing new is said', async (t) => {
  t.same(polled(waiting, ok({ status: 'waiting' })), { state: waiting, effects: [] });
});

t.test(
  'a dropped network: said once, polls go on, and the next answer says whether the place is still hers',
  async (t) => {
    const dropped = polled(waiting, failed(0));
    t.same([dropped.state.status, dropped.state.polling, dropped.effects], ['reconnecting', true, [{ do: 'status' }]]);
    t.same(polled(dropped.state, failed(0)).effects, [], 'not said again');
    const back = polled(dropped.state, ok({ status: 'waiting' }));
    t.same([back.state.status, back.effects], ['waiting', [{ do: 'status' }]], 'back to waiting, said');
    const gone = polled(dropped.state, failed(404));
    t.same([gone.state.status, gone.state.polling], ['timedOut', false], 'the server let her place go after its grace');
    t.same(polled(waiting, failed(502)), { state: waiting, effects: [] }, 'another failure changes nothing');
  },
);

t.test('Leave: the polls stop, the form comes back with the focus on Ask', async (t) => {
  t.same(pollsEnd(waiting), { ...waiting, polling: false });
  t.same(withdrawn(waiting), {
    state: { status: 'ready', knockedAt: 5000, polling: false },
    effects: [{ do: 'status' }, { do: 'focus', on: 'ask' }],
  });
});

t.test(
  'what the screen shows: the card while she waits, Ask again after a refusal, nothing to ask when barred',
  async (t) => {
    t.same(screenOf('ready'), { asked: false, ask: true, askAgain: false, editable: true, leave: true, form: true });
    t.same(screenOf('waiting'), {
      asked: true,
      ask: false,
      askAgain: false,
      editable: false,
      leave: true,
      form: false,
    });
    t.same(screenOf('reconnecting'), screenOf('waiting'), 'reconnecting keeps the card');
    for (const s of ['refused', 'expired', 'lost', 'timedOut'] as const)
      t.same(screenOf(s), { asked: false, ask: false, askAgain: true, editable: true, leave: true, form: true }, s);
    t.same(screenOf('barred'), {
      asked: false,
      ask: false,
      askAgain: false,
      editable: false,
      leave: false,
      form: false,
    });
  },
);

t.test('the time waited: minutes and seconds, never negative', async (t) => {
  t.equal(elapsed(0, 7_900), '0:07');
  t.equal(elapsed(0, 65_000), '1:05');
  t.equal(elapsed(0, 760_000), '12:40');
  t.equal(elapsed(10_000, 0), '0:00');
});

t.test(
  'issue 31 point 3: while the network is gone polls back off (2, 4, 8, then 10 s) and go at once when the browser is online',
  async (t) => {
    t.same([1, 2, 3, 4, 9].map(retryDelayMs), [2000, 4000, 8000, 10_000, 10_000]);
    let state = waiting;
    const at: number[] = [];
    let now = 10_000;
    for (let i = 0; i < 4; i++) {
      state = polled(state, failed(0), { now }).state;
      at.push(state.retry!.at - now);
      t.notOk(mayPoll(state, now + 1000), 'not before the back-off');
      t.ok(mayPoll(state, now + 1000, true), "the browser's online event: at once");
      now = state.retry!.at;
      t.ok(mayPoll(state, now), 'once the back-off passed');
    }
    t.same(at, [2000, 4000, 8000, 10_000]);
    t.equal(state.status, 'reconnecting');
    const back = polled(state, ok({ status: 'waiting' }), { now });
    t.same(back.state, { status: 'waiting', knockedAt: 5000, polling: true }, 'back: no back-off left');
    t.same(back.effects, [{ do: 'status' }], 'and said');
    t.ok(mayPoll(back.state, now));
  },
);

t.test(
  'issue 31 point 3: her place gone after a silence says why (the grace ran out); a place gone otherwise says it was lost',
  async (t) => {
    const dropped = polled(waiting, failed(0), { now: 1 }).state;
    const afterDrop = polled(dropped, failed(404), { now: 70_000 });
    t.same(
      [afterDrop.state.status, afterDrop.state.polling, afterDrop.effects],
      ['timedOut', false, [{ do: 'status' }]],
    );
    t.same(screenOf('timedOut').askAgain, true, 'with Ask again');
    const frozen = polled(waiting, failed(404), { now: 90_000, silentFor: 80_000 });
    t.equal(frozen.state.status, 'timedOut', 'a frozen tab that heard nothing for 80 s: the grace ran out too');
    const plain = polled(waiting, failed(404), { now: 4000, silentFor: 2000 });
    t.equal(plain.state.status, 'lost', 'a place gone while the page was in touch: lost (e.g. withdrawn elsewhere)');
  },
);

t.test('one poll at a time; the network back while one runs means polling again once it ends', async (t) => {
  const polls = new OnePoll();
  t.ok(polls.free(false), 'free at first');
  polls.begin();
  t.notOk(polls.free(false), 'not while one runs (a tick)');
  t.notOk(polls.free(true), "not while one runs (the browser's online)");
  t.ok(polls.end(), 'but its end says to poll again at once: it may have gone into the dead network');
  t.ok(polls.free(false), 'free again');
  polls.begin();
  t.notOk(polls.free(false), 'a tick meanwhile');
  t.notOk(polls.end(), 'is no reason to poll again');
  polls.begin();
  polls.free(true);
  polls.end();
  polls.begin();
  t.notOk(polls.end(), 'an online is kept for one end only');
});
