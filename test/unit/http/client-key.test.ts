import t from 'tap';
import { clientKey, clientNetwork } from '../../../src/platform/client-key.js';

t.test('an IPv4 address is one client; its IPv4-mapped IPv6 form is the same client', async (t) => {
  t.equal(clientKey('203.0.113.7'), '203.0.113.7');
  t.equal(clientKey('::ffff:203.0.113.7'), '203.0.113.7');
  t.equal(clientKey('::FFFF:203.0.113.7'), '203.0.113.7');
});

t.test('an IPv6 host is its /64, however the address is written', async (t) => {
  const key = '2001:db8:1:2::/64';
  for (const ip of [
    '2001:db8:1:2::1',
    '2001:db8:1:2:ffff:ffff:ffff:ffff',
    '2001:0db8:0001:0002:0000:0000:0000:0001',
    '2001:DB8:1:2::abcd',
    '2001:db8:1:2::1%eth0',
  ]) {
    t.equal(clientKey(ip), key, ip);
  }
  t.equal(clientKey('2001:db8:1:3::1'), '2001:db8:1:3::/64', 'the next /64 is another client');
  t.equal(clientKey('::1'), '0:0:0:0::/64');
  t.equal(clientKey('2001:db8::1.2.3.4'), '2001:db8:0:0::/64', 'an embedded dotted tail');
});

t.test('issue 28 point 8: an IPv6 client also belongs to its /56, counted together; IPv4 has no network', async (t) => {
  for (const ip of ['2001:db8:1:200::1', '2001:db8:1:2ff:ffff::1', '2001:0db8:0001:0250:0000:0000:0000:0001'])
    t.equal(clientNetwork(ip), '2001:db8:1:200::/56', ip);
  t.equal(clientNetwork('2001:db8:1:300::1'), '2001:db8:1:300::/56', 'the next /56 is another network');
  t.equal(clientNetwork('2001:db8:1:ff::1'), '2001:db8:1:0::/56');
  t.equal(clientNetwork('203.0.113.7'), null);
  t.equal(clientNetwork('::ffff:203.0.113.7'), null, 'an IPv4-mapped address is IPv4');
});
