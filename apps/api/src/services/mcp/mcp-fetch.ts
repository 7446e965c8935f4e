/**
 * The fetch every remote MCP connection uses (docs/mcp.md#security): before
 * each request — the first one and every redirect hop — the URL must be
 * http(s) and its host must resolve to public addresses only, unless the
 * operator allowed private ones (`MANGO_MCP_ALLOW_PRIVATE_URLS=true`, for
 * servers on this machine or network). The SDK follows redirects only within
 * the origin and calls this fetch for each hop; a redirect this fetch is
 * asked to follow itself is followed by hand, hop by hop, checked the same way.
 */
import { type AddressLookup, checkFetchableUrl, GuardedFetchError } from '../../net/guarded-fetch';

export interface McpFetchOptions {
  allowPrivateUrls: boolean;
  /** Resolves host names (the system resolver by default; injectable for tests). */
  lookup?: AddressLookup;
  /** The fetch underneath (the global one by default). */
  fetch?: typeof fetch;
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Refuses an MCP URL this server must not reach; resolves to the URL when it may. */
export function checkMcpUrl(
  raw: string,
  options: Pick<McpFetchOptions, 'allowPrivateUrls' | 'lookup'>,
): Promise<URL> {
  return checkFetchableUrl(raw, {
    allowNonPublic: options.allowPrivateUrls,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
}

export type McpFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export function createMcpFetch(options: McpFetchOptions): McpFetch {
  const base = options.fetch ?? fetch;
  return async (input, init) => {
    let url = await checkMcpUrl(String(input), options);
    if (init?.redirect === 'manual' || init?.redirect === 'error') return base(url, init);
    for (let hop = 0; ; hop++) {
      const response = await base(url, { ...init, redirect: 'manual' });
      const location = REDIRECT_STATUSES.has(response.status)
        ? response.headers.get('location')
        : null;
      if (!location) return response;
      if (hop === MAX_REDIRECTS)
        throw new GuardedFetchError(`${url.origin} redirected more than ${MAX_REDIRECTS} times.`);
      await response.body?.cancel();
      url = await checkMcpUrl(new URL(location, url).href, options);
    }
  };
}
