import { describe, expect, test } from 'bun:test';
import { getRequestContext, pathOf, setPeerAddressLookup } from '../../src/request-context';

describe('pathOf', () => {
  const urls = [
    'http://127.0.0.1:3001/api/settings/tools',
    'http://127.0.0.1:3001/api/settings/tools?x=1&y=/a/../b',
    'http://127.0.0.1:3001/api/chats#frag',
    'http://127.0.0.1:3001/api/chats?#',
    'http://127.0.0.1:3001/api/chats#a?b',
    'http://127.0.0.1:3001/',
    'http://127.0.0.1:3001',
    'http://[::1]:3001/api/health',
    'http://host/api/auth/../settings/tools',
    'http://host/api/./health',
    'http://host/api/%2e%2e/settings',
    'http://host/api/%2E/x',
    'http://host/a\\b',
    'http://host/a//b/',
    'http://host/a b',
    'http://host/ä/ö',
    'http://host/a/%7Euser',
    'http://host/a/..',
    'http://host/a/.',
    'http://host/.well-known/x',
    'https://user:pass@host:8443/p/q;r=1',
    'http://host/api/images/0b9c-12?v=1',
    'http://host/x"y<z>',
    'http://host/a|b^c`d{e}',
  ];
  for (const url of urls) {
    test(url, () => {
      expect(pathOf(url)).toBe(new URL(url).pathname);
    });
  }
});

describe('getRequestContext', () => {
  test('is the same object for the same request, with its path and a request id', () => {
    const request = new Request('http://127.0.0.1/api/chats?limit=5');
    const context = getRequestContext(request);
    expect(getRequestContext(request)).toBe(context);
    expect(context.path).toBe('/api/chats');
    expect(context.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('honours a well-formed incoming x-request-id and replaces another', () => {
    const good = new Request('http://h/', { headers: { 'x-request-id': 'abc.DEF_1-2' } });
    const bad = new Request('http://h/', { headers: { 'x-request-id': 'not ok\u0001' } });
    expect(getRequestContext(good).requestId).toBe('abc.DEF_1-2');
    expect(getRequestContext(bad).requestId).not.toBe('not ok\u0001');
  });

  test('looks up the peer address once, and only when asked', () => {
    const request = new Request('http://h/api/auth/sign-in/email');
    let lookups = 0;
    setPeerAddressLookup(request, () => {
      lookups += 1;
      return '203.0.113.7';
    });
    expect(lookups).toBe(0);
    expect(getRequestContext(request).peerAddress).toBe('203.0.113.7');
    expect(getRequestContext(request).peerAddress).toBe('203.0.113.7');
    expect(lookups).toBe(1);
    expect(getRequestContext(new Request('http://h/')).peerAddress).toBeUndefined();
  });
});
