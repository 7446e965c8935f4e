import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  checkFetchableUrl,
  GuardedFetchError,
  guardedFetch,
  isNonPublicAddress,
} from '../../../src/net/guarded-fetch';

describe('the URL guard', () => {
  test('tells public addresses from loopback, private, link-local and reserved ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      'not-an-address',
    ])
      expect({ address, refused: isNonPublicAddress(address) }).toEqual({ address, refused: true });
    for (const address of [
      '8.8.8.8',
      '172.32.0.1',
      '192.169.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
    ])
      expect({ address, refused: isNonPublicAddress(address) }).toEqual({
        address,
        refused: false,
      });
  });

  test('refuses other schemes, and names that resolve to any non-public address', async () => {
    await expect(checkFetchableUrl('file:///etc/passwd')).rejects.toThrow(GuardedFetchError);
    await expect(checkFetchableUrl('not a url')).rejects.toThrow('is not a URL');
    const lookup = async (host: string) =>
      host === 'mixed.example' ? ['8.8.8.8', '10.0.0.5'] : ['8.8.4.4'];
    await expect(checkFetchableUrl('https://mixed.example/x.png', { lookup })).rejects.toThrow(
      '10.0.0.5',
    );
    expect((await checkFetchableUrl('https://cdn.example/x.png', { lookup })).hostname).toBe(
      'cdn.example',
    );
    await expect(checkFetchableUrl('http://[::1]:8080/x')).rejects.toThrow(GuardedFetchError);
    // An origin the operator configured is trusted as it is.
    expect(
      (await checkFetchableUrl('http://127.0.0.1:9/x', { trustedOrigins: ['http://127.0.0.1:9'] }))
        .port,
    ).toBe('9');
  });
});

describe('guardedFetch', () => {
  let server: ReturnType<typeof Bun.serve>;
  let origin: string;
  beforeAll(() => {
    server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(request) {
        const path = new URL(request.url).pathname;
        if (path === '/image')
          return new Response(new Uint8Array(100), { headers: { 'content-type': 'image/png' } });
        if (path === '/to-metadata')
          return Response.redirect('http://169.254.169.254/latest/', 302);
        if (path === '/to-image') return Response.redirect('/image', 302);
        if (path === '/big') return new Response(new Uint8Array(5000));
        return new Response('no', { status: 404 });
      },
    });
    origin = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.stop(true));

  const options = () => ({ maxBytes: 1000, trustedOrigins: [origin] });

  test('fetches from a trusted origin, following a redirect that stays allowed', async () => {
    const fetched = await guardedFetch(`${origin}/to-image`, options());
    expect(fetched.bytes.byteLength).toBe(100);
    expect(fetched.contentType).toBe('image/png');
    expect(fetched.url).toBe(`${origin}/image`);
  });

  test('checks every redirect hop, caps the body, and refuses what is not trusted', async () => {
    await expect(guardedFetch(`${origin}/to-metadata`, options())).rejects.toThrow(
      '169.254.169.254',
    );
    await expect(guardedFetch(`${origin}/big`, options())).rejects.toThrow('at most');
    await expect(guardedFetch(`${origin}/image`, { maxBytes: 1000 })).rejects.toThrow(
      GuardedFetchError,
    );
    await expect(guardedFetch(`${origin}/missing`, options())).rejects.toThrow('HTTP 404');
  });
});
