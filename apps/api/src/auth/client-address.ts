/**
 * Who a request comes from, for the sign-in limiter (docs/security.md#rate-limits):
 * the connection's peer address, or — when that peer is a proxy the operator
 * trusts (`MANGO_TRUSTED_PROXIES`) — the address the proxies name in
 * `X-Forwarded-For`, read from the right past every trusted hop. A client's
 * own `X-Forwarded-For` is never believed: without trusted proxies, anyone
 * could claim a fresh address for every attempt.
 */
import {
  findInvalidTrustedProxies,
  getIPFromHeader,
  normalizeIP,
} from '@better-auth/core/utils/ip';

/** The header that hands better-auth the resolved address; a client's own is always replaced. */
export const CLIENT_ADDRESS_HEADER = 'x-mango-client-address';

/** Entries of a trusted-proxy list that are neither an IP address nor a CIDR range. */
export function invalidTrustedProxies(entries: readonly string[]): string[] {
  return findInvalidTrustedProxies([...entries]);
}

export function resolveClientAddress(
  peer: string | undefined,
  forwardedFor: string | null,
  trustedProxies: readonly string[],
): string | undefined {
  if (!peer) return undefined;
  if (trustedProxies.length === 0 || !forwardedFor) return normalizeIP(peer);
  // The peer is the last hop; when it is not trusted, nothing it forwards counts.
  const chain = `${forwardedFor},${peer}`;
  return getIPFromHeader(chain, { trustedProxies: [...trustedProxies] }) ?? normalizeIP(peer);
}
