import test from 'ava';
import { addressAllowed, isPublicAddress, parseNetworks } from '../../src/webfetch/addresses.ts';

// The address policy of WebFetch's own fetch (docs/services.md): the table a connection is judged by.

test('non-public IPv4 and IPv6 addresses are refused, in every form that reaches them', (t) => {
  const refused = [
    '127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.254',
    '0.0.0.0', '255.255.255.255', '224.0.0.251', '239.1.1.1', '192.0.2.10', '198.18.0.1', '240.0.0.1',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'fec0::1', 'ff02::1', '2001:db8::1',
    // IPv4-mapped, NAT64 and 6to4 forms of private addresses
    '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '64:ff9b::7f00:1', '2002:a00:1::1',
    'not an address',
  ];
  for (const ip of refused) t.false(isPublicAddress(ip), ip);
  const allowed = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '100.63.255.255', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];
  for (const ip of allowed) t.true(isPublicAddress(ip), ip);
});

test('allowed_private_networks opens exactly the listed networks, IPv4-mapped forms included', (t) => {
  const nets = parseNetworks(['127.0.0.1', '10.1.0.0/16', 'fd00::/8', 'nonsense']);
  t.is(nets.length, 3, 'an invalid entry is left out');
  t.true(addressAllowed('127.0.0.1', nets));
  t.true(addressAllowed('::ffff:127.0.0.1', nets));
  t.false(addressAllowed('127.0.0.2', nets));
  t.true(addressAllowed('10.1.200.3', nets));
  t.false(addressAllowed('10.2.0.1', nets));
  t.true(addressAllowed('fd00::5', nets));
  t.false(addressAllowed('::1', nets));
  t.false(addressAllowed('169.254.169.254', nets));
  t.true(addressAllowed('8.8.8.8', []), 'public addresses need no entry');
});
