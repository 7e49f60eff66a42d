// Issue 31 point 11: an embedding page's switch for the pre-join screen (the device check),
// read from the frame's fragment as external_api.js writes configOverwrite there.
import t from 'tap';
import { prejoinShown, readFragment } from '../../../src/web/embed-settings.js';

/** The fragment external_api.js builds from a configOverwrite object: `config.<key>=<JSON>` pairs. */
const fragmentOf = (config: Record<string, unknown>) =>
  '#' +
  Object.entries(config)
    .map(([key, value]) => `config.${encodeURIComponent(key)}=${encodeURIComponent(JSON.stringify(value))}`)
    .join('&');

t.test('the device check is shown unless the embedding page turns the pre-join screen off', async (t) => {
  const shown = (config: Record<string, unknown>) => prejoinShown(readFragment(fragmentOf(config)));
  t.equal(shown({}), true, 'shown by default');
  t.equal(shown({ startWithAudioMuted: true }), true, 'other settings leave it on');
  t.equal(shown({ prejoinConfig: { enabled: false } }), false, 'prejoinConfig.enabled: false turns it off');
  t.equal(shown({ prejoinConfig: { enabled: true } }), true);
  t.equal(shown({ prejoinPageEnabled: false }), false, 'so does the older prejoinPageEnabled: false');
  t.equal(shown({ prejoinPageEnabled: true }), true);
  t.equal(
    shown({ prejoinConfig: { enabled: true }, prejoinPageEnabled: false }),
    true,
    'prejoinConfig.enabled wins over the older key when it says',
  );
  t.equal(
    shown({ prejoinConfig: { hideDisplayName: true }, prejoinPageEnabled: false }),
    false,
    'a prejoinConfig without enabled leaves the older key to decide',
  );
  t.equal(shown({ prejoinConfig: { enabled: 'no' } }), true, 'only a boolean says');
  t.equal(shown({ prejoinPageEnabled: 0 }), true, 'only false turns it off');
});
