// Issue 11 point 1, upgrade path: rooms made before meeting rooms were random (ids derived
// from the meetingID, open and listed) are brought in line when the module starts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { startCompat } from '../../../src/compat/module.js';
import { loadConfig } from '../../../src/config/load.js';
import { openServices } from '../../../src/daemon/services.js';
import { openStoreBundle } from '../../../src/daemon/store-bundle.js';
import { SqliteCompatStore } from '../../../src/compat/store/compat-store.js';
import { meeting } from '../../helpers/compat-meeting.js';

t.test(
  'at start, rooms of ended meetings close and rooms of open ones follow their guest policy, unlisted',
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'meet-reconcile-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const config = loadConfig({
      env: { SERVICE_DATA_DIR: dataDir, COMPAT_HTTP_ADDR: '127.0.0.1:0', COMPAT_API_SHARED_SECRET: 'reconcile-secret' },
      configFile: null,
    });

    // What an earlier version left: three rooms, open and listed, and the meetings in them.
    const before = await openServices(config, await openStoreBundle(config));
    for (const id of ['cf-ended', 'cf-open', 'cf-deny'])
      await before.rooms.create({ room_id: id, name: id, waiting_room: 'off' });
    await before.close();
    const store = new SqliteCompatStore(config.compatApiDataDir);
    store.insertMeeting(meeting('primary', 'old', 1, { roomId: 'cf-ended', endTime: 2, endReason: 'end' }));
    store.insertMeeting(meeting('primary', 'live', 3, { roomId: 'cf-open' }));
    store.insertMeeting(meeting('primary', 'strict', 4, { roomId: 'cf-deny', guestPolicy: 'ALWAYS_DENY' }));
    store.close();

    const services = await openServices(config, await openStoreBundle(config));
    const compat = await startCompat(config, services, pino({ level: 'silent' }));
    t.teardown(async () => {
      await compat?.stop();
      await services.close();
    });
    t.match(
      await services.rooms.get('cf-ended'),
      { entry: 'closed', unlisted: true },
      'the ended meeting’s room is closed',
    );
    t.match(
      await services.rooms.get('cf-open'),
      { entry: 'open', unlisted: true },
      'an open meeting’s room is unlisted',
    );
    t.match(
      await services.rooms.get('cf-deny'),
      { entry: 'token', unlisted: true },
      'and refuses bare guests under ALWAYS_DENY',
    );
    await t.rejects(services.waiting.start({ roomId: 'cf-ended', name: 'Bare', clientKey: 'x' }), {
      code: 'room_not_found',
    });
  },
);
