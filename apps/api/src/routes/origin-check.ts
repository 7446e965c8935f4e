/**
 * A state-changing request made with a session cookie must come from a page
 * of this server (docs/security.md#cross-site-requests). A browser sends the
 * session cookie with requests that another site's page makes, and names that
 * page's origin in `Origin`; so a POST, PUT, PATCH or DELETE that carries a
 * cookie and an `Origin` other than this server's is refused (403
 * `forbidden`) before anything else runs. This server's origins: the host the
 * request was sent to (its `Host`, whatever the scheme, so a TLS proxy in
 * front changes nothing), `MANGO_PUBLIC_URL`, and `MANGO_TRUSTED_ORIGINS`.
 * Requests without a cookie (API keys, scripts) and without `Origin` (not a
 * browser) are not concerned.
 */
import { ApiError } from '../errors';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function checkRequestOrigin(request: Request, trustedOrigins: readonly string[]): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.get('origin');
  if (origin === null || !request.headers.has('cookie')) return;
  const host = request.headers.get('host') ?? new URL(request.url).host;
  let originHost: string | undefined;
  try {
    originHost = new URL(origin).host;
  } catch {
    // "null" (a sandboxed frame, a file) or garbage: not this server
  }
  if (originHost !== undefined && originHost === host) return;
  if (trustedOrigins.includes(origin)) return;
  throw new ApiError(
    'forbidden',
    `A ${request.method} with a session cookie from the page at ${origin} is refused: only this server's own pages (or an origin in MANGO_TRUSTED_ORIGINS) may change things with a signed-in browser session.`,
    { details: { origin } },
  );
}
