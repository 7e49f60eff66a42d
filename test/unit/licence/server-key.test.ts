// The server key (issue 13, point 1): an EdDSA compact JWS verified offline; each refusal
// says which of the four faults it is, and a forged key is never reported as merely expired.
import t from 'tap';
import { LicenceError, licencePublicKey, verifyServerKey } from '../../../src/licence/server-key.js';
import { badKeys, faultWords } from '../../helpers/bad-keys.js';
import { testAuthority, testServerKey } from '../../helpers/licence.js';

const publicKey = () => licencePublicKey(testAuthority().publicKeyPem);

t.test('a key of the authority verifies and says what it grants', async (t) => {
  const now = new Date();
  const key = await testServerKey({ customer: 'Lycée Est', modules: ['compat', 'recording'], days: 90 }, now);
  t.match(key, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'a compact JWS');
  const licence = await verifyServerKey(`  ${key}\n`, publicKey(), 'compat', now);
  t.equal(licence.customer, 'Lycée Est');
  t.same(licence.modules, ['compat', 'recording']);
  t.equal(Math.round((licence.expiresAt.getTime() - licence.issuedAt.getTime()) / 86_400_000), 90, '90 days');
});

t.test('each bad key names its fault', async (t) => {
  for (const bad of await badKeys()) {
    const err = await verifyServerKey(bad.key, publicKey(), 'compat', new Date()).then(
      () => null,
      (e: unknown) => e,
    );
    t.type(err, LicenceError, `${bad.name}: refused`);
    t.equal((err as LicenceError).fault, bad.fault, `${bad.name}: ${bad.fault}`);
    t.match((err as LicenceError).message, faultWords[bad.fault], `${bad.name}: the message says it`);
  }
});

t.test('a forged key that is also expired is reported forged', async (t) => {
  const key = await testServerKey({ days: 1 }, new Date(Date.now() - 5 * 86_400_000));
  const [header, payload] = key.split('.');
  const forged = `${header}.${payload}.${Buffer.alloc(64, 1).toString('base64url')}`;
  const err = await verifyServerKey(forged, publicKey(), 'compat', new Date()).catch((e: unknown) => e);
  t.equal((err as LicenceError).fault, 'forged');
});
