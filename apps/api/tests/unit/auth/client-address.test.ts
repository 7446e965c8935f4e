import { describe, expect, test } from 'bun:test';
import { invalidTrustedProxies, resolveClientAddress } from '../../../src/auth/client-address';

describe('resolveClientAddress', () => {
  test('without trusted proxies the peer is the client, whatever X-Forwarded-For claims', () => {
    expect(resolveClientAddress('192.0.2.10', '203.0.113.5', [])).toBe('192.0.2.10');
    expect(resolveClientAddress('::ffff:192.0.2.10', null, [])).toBe('192.0.2.10');
  });

  test('a trusted peer forwards its client; hops are read from the right past every trusted one', () => {
    expect(resolveClientAddress('10.0.0.2', '203.0.113.5', ['10.0.0.0/8'])).toBe('203.0.113.5');
    expect(
      resolveClientAddress('10.0.0.2', '198.51.100.9, 203.0.113.5, 10.0.0.7', ['10.0.0.0/8']),
    ).toBe('203.0.113.5');
  });

  test('a peer that is not trusted is the client even when proxies are configured', () => {
    expect(resolveClientAddress('192.0.2.10', '203.0.113.5', ['10.0.0.0/8'])).toBe('192.0.2.10');
  });

  test('no peer (a request that did not come through the HTTP server) resolves to nothing', () => {
    expect(resolveClientAddress(undefined, '203.0.113.5', ['10.0.0.0/8'])).toBeUndefined();
  });

  test('IPv6 clients are counted by their /64', () => {
    expect(resolveClientAddress('2001:db8:1:2:3:4:5:6', null, [])).toBe(
      resolveClientAddress('2001:db8:1:2:ffff:4:5:7', null, []),
    );
  });

  test('entries that are neither addresses nor CIDR ranges are reported', () => {
    expect(invalidTrustedProxies(['10.0.0.0/8', '::1', 'proxy.local', '10.0.0.0/99'])).toEqual([
      'proxy.local',
      '10.0.0.0/99',
    ]);
  });
});
