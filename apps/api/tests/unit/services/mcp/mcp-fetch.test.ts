import { describe, expect, test } from 'bun:test';
import { checkMcpUrl, createMcpFetch } from '../../../../src/services/mcp/mcp-fetch';

const publicLookup = async (host: string) =>
  host === 'mcp.example.com' ? ['93.184.216.34'] : ['10.0.0.7'];

describe('the MCP fetch guard', () => {
  test.each([
    'http://127.0.0.1:3000/mcp',
    'http://localhost/mcp',
    'http://10.1.2.3/mcp',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/mcp',
    'http://[fd00::1]/mcp',
    'http://internal.example.com/mcp',
  ])('%s is refused by default', async (url) => {
    await expect(
      checkMcpUrl(url, { allowPrivateUrls: false, lookup: publicLookup }),
    ).rejects.toThrow(/loopback, private, link-local or reserved/);
  });

  test('public hosts pass; private ones pass once allowed; other schemes never', async () => {
    expect(
      (
        await checkMcpUrl('https://mcp.example.com/mcp', {
          allowPrivateUrls: false,
          lookup: publicLookup,
        })
      ).host,
    ).toBe('mcp.example.com');
    expect((await checkMcpUrl('http://127.0.0.1:1/mcp', { allowPrivateUrls: true })).port).toBe(
      '1',
    );
    await expect(checkMcpUrl('file:///etc/passwd', { allowPrivateUrls: true })).rejects.toThrow(
      /http\(s\)/,
    );
    await expect(
      checkMcpUrl('ftp://mcp.example.com/', { allowPrivateUrls: false, lookup: publicLookup }),
    ).rejects.toThrow(/http\(s\)/);
  });

  test('every redirect hop is checked: a public server cannot send the request inside', async () => {
    const requested: string[] = [];
    const guarded = createMcpFetch({
      allowPrivateUrls: false,
      lookup: publicLookup,
      fetch: (async (input: string | URL | Request) => {
        requested.push(String(input));
        return new Response(null, {
          status: 302,
          headers: { location: 'http://169.254.169.254/latest' },
        });
      }) as typeof fetch,
    });
    await expect(guarded('https://mcp.example.com/mcp')).rejects.toThrow(/169\.254\.169\.254/);
    expect(requested).toEqual(['https://mcp.example.com/mcp']);
  });

  test('a redirect the SDK follows itself is checked at each of its requests', async () => {
    const guarded = createMcpFetch({
      allowPrivateUrls: false,
      lookup: publicLookup,
      fetch: (async () => new Response('ok')) as unknown as typeof fetch,
    });
    expect((await guarded('https://mcp.example.com/mcp', { redirect: 'manual' })).status).toBe(200);
    await expect(guarded('http://10.0.0.1/next', { redirect: 'manual' })).rejects.toThrow(
      /10\.0\.0\.1/,
    );
  });
});
