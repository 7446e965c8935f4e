/**
 * Fetching a URL someone else chose (an image URL in a provider's answer)
 * without letting it reach this server's own network (docs/images.md#image-urls):
 * only http(s); the host's every address must be public — loopback, private,
 * link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, multicast
 * and reserved ranges are refused — unless the URL's origin is one the
 * operator configured (the provider's own base URL); redirects are followed by
 * hand and every hop is checked again; the body is capped. The check resolves
 * the name just before connecting; a DNS answer that changes in between (DNS
 * rebinding) is not defeated by it.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError } from '../errors';

/** A URL the guard refused, or a fetch it stopped. */
export class GuardedFetchError extends AppError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('permission_denied', message, options);
  }
}

export type AddressLookup = (hostname: string) => Promise<string[]>;

export interface GuardedFetchOptions {
  signal?: AbortSignal;
  /** The body's size limit, in bytes. */
  maxBytes: number;
  /** Origins (`http://host:port`) trusted as they are: the operator configured them. */
  trustedOrigins?: readonly string[];
  /** Resolves a host name to its addresses (the system resolver by default; injectable for tests). */
  lookup?: AddressLookup;
  maxRedirects?: number;
}

const systemLookup: AddressLookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

function isNonPublicIpv4(address: string): boolean {
  const [a = 0, b = 0, c = 0] = ipv4Bytes(address);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && c === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

/** Whether an IP address is anything but a public unicast one. */
export function isNonPublicAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return isNonPublicIpv4(address);
  if (version !== 6) return true;
  const lower = address.toLowerCase();
  const mapped = lower.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped) return isNonPublicIpv4(mapped[1] as string);
  if (lower === '::' || lower === '::1') return true;
  const first = Number.parseInt(lower.split(':')[0] || '0', 16);
  return (
    (first & 0xfe00) === 0xfc00 || // unique local fc00::/7
    (first & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (first & 0xff00) === 0xff00 // multicast ff00::/8
  );
}

/**
 * Refuses a URL this server must not fetch; resolves when it may. With
 * `allowNonPublic` (an operator's choice, e.g. MCP servers on this network)
 * only the scheme is checked.
 */
export async function checkFetchableUrl(
  raw: string,
  options: Pick<GuardedFetchOptions, 'trustedOrigins' | 'lookup'> & {
    allowNonPublic?: boolean;
  } = {},
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GuardedFetchError(`"${raw.slice(0, 200)}" is not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new GuardedFetchError(`Only http(s) URLs are fetched; got "${url.protocol}".`);
  if (options.allowNonPublic || options.trustedOrigins?.includes(url.origin)) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await (options.lookup ?? systemLookup)(host);
  if (addresses.length === 0) throw new GuardedFetchError(`"${host}" has no address.`);
  const refused = addresses.find(isNonPublicAddress);
  if (refused)
    throw new GuardedFetchError(
      `${url.origin} resolves to ${refused}, a loopback, private, link-local or reserved address; this server fetches only public addresses.`,
    );
  return url;
}

async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes)
    throw new GuardedFetchError(`The answer is ${declared} bytes; at most ${maxBytes} are read.`);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new GuardedFetchError(`The answer is over ${maxBytes} bytes; at most that is read.`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** GETs a URL through the guard; resolves to its body and content type (2xx only). */
export async function guardedFetch(
  raw: string,
  options: GuardedFetchOptions,
): Promise<{ bytes: Uint8Array; contentType: string | null; url: string }> {
  const maxRedirects = options.maxRedirects ?? 3;
  let current = raw;
  for (let hop = 0; hop <= maxRedirects; hop++) {
    const url = await checkFetchableUrl(current, options);
    const response = await fetch(url, {
      redirect: 'manual',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      current = new URL(location, url).toString();
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new AppError('upstream_error', `${url.origin} answered HTTP ${response.status}.`);
    }
    return {
      bytes: await readCapped(response, options.maxBytes),
      contentType: response.headers.get('content-type'),
      url: url.toString(),
    };
  }
  throw new GuardedFetchError(`More than ${maxRedirects} redirects; the fetch was stopped.`);
}
