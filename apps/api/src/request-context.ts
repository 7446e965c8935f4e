/**
 * Per-request facts that several layers need (the request id for logs and
 * error replies, the path for routing and access logs, the signed-in user's id
 * for access logs), kept on the `Request` object so nothing outlives the
 * request.
 */
import { randomUUID } from 'node:crypto';
import type { AuthenticatedUser } from './auth/create-auth';

export interface RequestContext {
  requestId: string;
  /** The URL's path, as `new URL(request.url).pathname` gives it. */
  readonly path: string;
  /** The signed-in user, once the authentication hook has run. */
  user?: AuthenticatedUser;
  /** The connection's remote address, when the request came through the HTTP server (looked up on first use). */
  readonly peerAddress: string | undefined;
}

class Context implements RequestContext {
  user?: AuthenticatedUser;
  #path: string | undefined;
  #peer: (() => string | undefined) | undefined;
  #peerAddress: string | undefined;

  constructor(
    readonly requestId: string,
    private readonly url: string,
  ) {}

  get path(): string {
    this.#path ??= pathOf(this.url);
    return this.#path;
  }

  get peerAddress(): string | undefined {
    if (this.#peer) {
      this.#peerAddress = this.#peer();
      this.#peer = undefined;
    }
    return this.#peerAddress;
  }

  lookUpPeerWith(lookup: () => string | undefined): void {
    this.#peer = lookup;
  }
}

// Kept on the request itself: a property lookup is cheaper per request than a WeakMap entry.
const CONTEXT = Symbol('mango.requestContext');
type WithContext = Request & { [CONTEXT]?: Context };

/** The request's context, created on first use (honouring a well-formed incoming `x-request-id`). */
export function getRequestContext(request: Request): RequestContext {
  return contextOf(request);
}

function contextOf(request: Request): Context {
  const carrier = request as WithContext;
  let context = carrier[CONTEXT];
  if (!context) {
    const incoming = request.headers.get('x-request-id');
    const requestId =
      incoming && /^[A-Za-z0-9._-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    context = new Context(requestId, request.url);
    carrier[CONTEXT] = context;
  }
  return context;
}

/**
 * Where the request's peer address comes from (the HTTP server's connection):
 * asked only if something needs it, since most requests never do.
 */
export function setPeerAddressLookup(request: Request, lookup: () => string | undefined): void {
  contextOf(request).lookUpPeerWith(lookup);
}

/**
 * `new URL(url).pathname` without parsing the whole URL when the path needs no
 * normalising (no percent escapes, backslashes or dot segments), which is
 * every request the HTTP server hands over in practice: it normalises paths.
 */
export function pathOf(url: string): string {
  const schemeEnd = url.indexOf('://');
  const start = schemeEnd < 0 ? -1 : url.indexOf('/', schemeEnd + 3);
  if (start < 0) return new URL(url).pathname;
  let end = url.length;
  for (const mark of ['?', '#']) {
    const at = url.indexOf(mark, start);
    if (at >= 0 && at < end) end = at;
  }
  const path = url.slice(start, end);
  const authority = url.slice(schemeEnd + 3, start);
  if (
    path.includes('%') ||
    path.includes('\\') ||
    path.includes('/.') ||
    authority.includes('\\') ||
    !/^[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/.test(path)
  )
    return new URL(url).pathname;
  return path;
}
