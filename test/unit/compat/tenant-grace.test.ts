// Issue 29 point 11, in process under a fake clock: a rotated-out secret (previous_*_secret
// with its _until in the tenants file) signs meeting-API calls and gateway tokens beside the
// new one until its end, and stops at the end by the clock alone, without a reload.
import { createHash } from 'node:crypto';
import t from 'tap';
import { SignedCall } from '../../../src/compat/confapi/checksum.js';
import { ConfapiError } from '../../../src/compat/confapi/errors.js';
import { TenantChooser } from '../../../src/compat/confapi/tenant-choice.js';
import { parseRegistry } from '../../../src/compat/tenants/parse.js';
import { TenantRegistry } from '../../../src/compat/tenants/registry.js';
import { GatewayKeys } from '../../../src/compat/videoconf/gateway-keys.js';
import { verifyGatewayToken } from '../../../src/compat/videoconf/gateway-token.js';
import { GatewayRefusal } from '../../../src/compat/videoconf/refusals.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { claims, mint } from '../../helpers/gateway.js';

const newApi = 'acme-new-api-secret-0123456789abcdefghij';
const oldApi = 'acme-old-api-secret-0123456789abcdefghij';
const newApp = 'acme-new-app-secret-0123456789abcdefghij';
const oldApp = 'acme-old-app-secret-0123456789abcdefghij';
const until = '2030-01-01T10:00:00Z';
const file = `[tenants.acme]
api_secret = "${newApi}"
app_id = "acme-app"
app_secret = "${newApp}"
previous_api_secret = "${oldApi}"
previous_api_secret_until = ${until}
previous_app_secret = "${oldApp}"
previous_app_secret_until = ${until}

[tenants.other]
api_secret = "other-api-secret-0123456789abcdefghijkl"
`;

const signed = (secret: string, query = 'meetingID=m1') =>
  new SignedCall(createHash('sha256').update(`getMeetingInfo${query}${secret}`).digest('hex'), 'getMeetingInfo', [
    query,
  ]);

function chosen(chooser: TenantChooser, secret: string, pathTenant?: string): string {
  try {
    return chooser.choose(signed(secret), { pathTenant, host: 'meet.test', client: '192.0.2.1', meetingId: 'm1' }).id;
  } catch (err) {
    if (err instanceof ConfapiError) return err.messageKey;
    throw err;
  }
}

t.test('the meeting API takes the previous secret until its end, by the clock, without a reload', async (t) => {
  const clock = new FakeClock(Date.parse('2030-01-01T09:00:00Z'));
  const registry = new TenantRegistry(parseRegistry(file, 'primary-secret-0123456789abcdefghijklmn'), clock);
  const chooser = new TenantChooser(registry, () => [], '');
  for (const path of [undefined, 'acme']) {
    const how = path === undefined ? 'searched' : 'named by path';
    t.equal(chosen(chooser, newApi, path), 'acme', `${how}: the new secret works`);
    t.equal(chosen(chooser, oldApi, path), 'acme', `${how}: the previous one too, during the grace`);
  }
  clock.advance(60 * 60 * 1000 - 1);
  t.equal(chosen(chooser, oldApi), 'acme', 'one millisecond before the end: still accepted');
  clock.advance(1);
  t.equal(registry.reloadCount(), 0, 'no reload happened');
  for (const path of [undefined, 'acme']) {
    t.equal(
      chosen(chooser, oldApi, path),
      'checksumError',
      `at the end the previous secret is refused (${path ?? 'searched'})`,
    );
    t.equal(chosen(chooser, newApi, path), 'acme', 'the new one goes on');
  }
});

t.test('the gateway takes the previous app secret until its end', async (t) => {
  const clock = new FakeClock(Date.parse('2030-01-01T09:00:00Z'));
  const registry = new TenantRegistry(parseRegistry(file, null), clock);
  const keys = new GatewayKeys(
    {
      jitsiAppId: '',
      jitsiAppSecret: null,
      jitsiAcceptedIssuers: [],
      jitsiAcceptedAudiences: ['jitsi'],
      jitsiAllowAnonymous: false,
    },
    registry,
  );
  const verify = async (secret: string) => {
    const at = Math.floor(clock.now().getTime() / 1000);
    try {
      const identity = await verifyGatewayToken(mint(claims('math', { iss: 'acme-app' }, at), { secret }), 'math', {
        pairFor: (iss) => keys.pairFor(iss),
        acceptedAudiences: keys.acceptedAudiences,
        now: clock.now(),
        maxLifetimeSecs: 86_400,
      });
      return identity.pair.tenantId;
    } catch (err) {
      if (err instanceof GatewayRefusal) return err.code;
      throw err;
    }
  };
  t.equal(await verify(newApp), 'acme', 'the new app secret works');
  t.equal(await verify(oldApp), 'acme', 'the previous app secret too, during the grace');
  t.equal(await verify('someone-else-secret-0123456789abcdefgh'), 'signature_invalid', 'a third secret does not');
  clock.advance(60 * 60 * 1000);
  t.equal(await verify(oldApp), 'signature_invalid', 'at the end the previous app secret is refused');
  t.equal(await verify(newApp), 'acme', 'the new one goes on');
});

t.test('the file: a previous secret goes with its end, an offset date-time, and names one tenant', async (t) => {
  const base = `[tenants.acme]\napi_secret = "${newApi}"\n`;
  for (const [extra, message] of [
    [`previous_api_secret = "${oldApi}"\n`, /previous_api_secret and previous_api_secret_until go together/],
    [
      `previous_api_secret = "${oldApi}"\nprevious_api_secret_until = 2030-01-01T10:00:00\n`,
      /must be a date-time with its offset/,
    ],
    [
      `previous_api_secret = "${oldApi}"\nprevious_api_secret_until = "tomorrow"\n`,
      /must be a date-time with its offset/,
    ],
    [
      `previous_app_secret = "${oldApp}"\nprevious_app_secret_until = ${until}\n`,
      /previous_app_secret needs a current app_secret/,
    ],
    [`previous_api_secret = "${newApi}"\nprevious_api_secret_until = ${until}\n`, /is the current api_secret/],
  ] as const) {
    t.throws(() => parseRegistry(base + extra, null), { name: 'RegistryError', message }, message.source);
  }
  t.throws(
    () =>
      parseRegistry(
        `${base}previous_api_secret = "${oldApi}"\nprevious_api_secret_until = ${until}\n[tenants.b]\napi_secret = "${oldApi}"\n`,
        null,
      ),
    { message: /tenants acme and b have the same api_secret/ },
    "a previous secret may not be another tenant's secret",
  );
});
