/**
 * Per-request facts that several layers need (the request id for logs and
 * error replies, the signed-in user's id for access logs), keyed by the
 * `Request` object so nothing outlives the request.
 */
import { randomUUID } from 'node:crypto';
import type { AuthenticatedUser } from './auth/create-auth';

export interface RequestContext {
  requestId: string;
  /** The signed-in user, once the authentication hook has run. */
  user?: AuthenticatedUser;
  /** The connection's remote address, when the request came through the HTTP server. */
  peerAddress?: string;
}

const contexts = new WeakMap<Request, RequestContext>();

/** The request's context, created on first use (honouring a well-formed incoming `x-request-id`). */
export function getRequestContext(request: Request): RequestContext {
  let context = contexts.get(request);
  if (!context) {
    const incoming = request.headers.get('x-request-id');
    const requestId =
      incoming && /^[A-Za-z0-9._-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    context = { requestId };
    contexts.set(request, context);
  }
  return context;
}
