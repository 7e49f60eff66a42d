import t from 'tap';
import { candidateAllowed, peerAddressAllowed, withoutRefusedCandidates } from '../../../src/media/candidates.js';

const strict = { privatePeers: false };
const lan = { privatePeers: true };

t.test('loopback, link-local, unspecified, multicast and reserved never reach Janus', async (t) => {
  const never = [
    '127.0.0.1',
    '127.255.0.9',
    '0.0.0.0',
    '0.1.2.3',
    '169.254.10.20',
    '224.0.0.251',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '[::1]',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'ff02::fb',
    '::127.0.0.1',
    '::a00:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:169.254.1.1',
    '64:ff9b::127.0.0.1',
  ];
  for (const address of never) {
    t.notOk(peerAddressAllowed(address, strict), `${address} (strict)`);
    t.notOk(peerAddressAllowed(address, lan), `${address} (private peers allowed)`);
  }
});

t.test('private ranges reach Janus only when SERVICE_MEDIA_PRIVATE_PEERS allows them', async (t) => {
  const privateOnes = [
    '10.0.0.5',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.20',
    '100.64.0.1',
    '100.127.255.255',
    'fc00::1',
    'fd12:3456::9',
    'fec0::1',
    '::ffff:10.1.2.3',
    '::ffff:c0a8:101',
    '64:ff9b::192.168.0.1',
  ];
  for (const address of privateOnes) {
    t.notOk(peerAddressAllowed(address, strict), `${address} refused by default`);
    t.ok(peerAddressAllowed(address, lan), `${address} allowed for a LAN`);
  }
});

t.test('public addresses pass; their neighbours of the private ranges are public', async (t) => {
  for (const address of [
    '198.51.100.7',
    '192.0.2.2',
    '203.0.113.9',
    '8.8.8.8',
    '172.15.0.1',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '11.0.0.1',
    '2001:db8::1',
    '2a00:1450:4001:81b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '1:2:3:4:5:6:7:8',
  ]) {
    t.ok(peerAddressAllowed(address, strict), address);
  }
});

t.test('names and odd spellings are dropped: Janus would resolve or read them its own way', async (t) => {
  for (const address of [
    '4f1e2d3c-1234-5678-9abc-def012345678.local',
    'localhost',
    'example.org',
    '127.1',
    '0x7f.0.0.1',
    '010.0.0.1',
    '2130706433',
    '1.2.3.256',
    '1::2::3',
    ':::',
    '12345::1',
    '1:2:3:4:5:6:7:8:9',
    '',
    'fe80::1%',
  ]) {
    t.notOk(peerAddressAllowed(address, lan), JSON.stringify(address));
  }
});

t.test('candidate lines, trickled or in a description', async (t) => {
  const line = (address: string) => `candidate:1 1 udp 2122260223 ${address} 54321 typ host generation 0`;
  t.ok(candidateAllowed(line('198.51.100.7'), strict));
  t.notOk(candidateAllowed(line('127.0.0.1'), lan));
  t.notOk(candidateAllowed(`a=${line('10.0.0.1')}`, strict), 'an a= line is read too');
  t.ok(candidateAllowed(`a=${line('10.0.0.1')}`, lan));
  t.ok(
    candidateAllowed('candidate:2 1 udp 1686052607 198.51.100.7 40000 typ srflx raddr 10.0.0.5 rport 5000', strict),
    'a server-reflexive candidate is judged by the address checks go to, not its raddr',
  );
  t.notOk(
    candidateAllowed('candidate:3 1 tcp 1518280447 192.168.0.4 9 typ host tcptype active', strict),
    'TCP candidates too',
  );
  t.ok(candidateAllowed('', strict), 'the empty candidate ends the candidates');
  t.notOk(candidateAllowed('candidate:1 1 udp', strict), 'an unreadable candidate is dropped');
  t.notOk(candidateAllowed('garbage 1 udp 2122260223 198.51.100.7 54321 typ host', strict), 'not a candidate');

  const sdp = [
    'v=0',
    'm=audio 9 UDP/TLS/RTP/SAVPF 111',
    `a=${line('198.51.100.7')}`,
    `a=${line('127.0.0.1')}`,
    `a=${line('10.0.0.5')}`,
    `a=${line('abc.local')}`,
    `a=${line('fe80::1')}`,
    'a=end-of-candidates',
    'a=mid:0',
    '',
  ];
  const crlf = sdp.join('\r\n');
  t.equal(
    withoutRefusedCandidates(crlf, strict),
    ['v=0', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', `a=${line('198.51.100.7')}`, 'a=end-of-candidates', 'a=mid:0', ''].join(
      '\r\n',
    ),
  );
  t.equal(
    withoutRefusedCandidates(sdp.join('\n'), lan),
    [
      'v=0',
      'm=audio 9 UDP/TLS/RTP/SAVPF 111',
      `a=${line('198.51.100.7')}`,
      `a=${line('10.0.0.5')}`,
      'a=end-of-candidates',
      'a=mid:0',
      '',
    ].join('\n'),
    'LF lines, private peers allowed',
  );
});
