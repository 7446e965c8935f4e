/**
 * The page's first requests, sent before the rest of its code is evaluated
 * (`bootstrap.ts`), so that they travel while the code starts instead of one
 * after another: who is signed in, and on a chat's URL the chat, its messages
 * and the chat list. Each answer is handed to the first `request()` for its
 * path and then forgotten, so later reads go to the server. Sent on the
 * guess that the visitor is signed in: for one who is not they come back 401
 * and are dropped unread. Imports nothing, so it runs first.
 */

/** The headers `request()` sends with a GET, so a prefetched answer is the one it would get. */
export const GET_HEADERS = { accept: 'application/json' } as const;

const early = new Map<string, Promise<Response>>();

export function prefetch(paths: string[]): void {
  for (const path of paths) {
    if (early.has(path)) continue;
    const pending = fetch(path, { headers: GET_HEADERS, credentials: 'same-origin' });
    // A failure is the taker's to see; never an unhandled rejection here.
    pending.catch(() => {});
    early.set(path, pending);
  }
}

/** The prefetched answer for `path`, once; undefined when there is none (any more). */
export function takePrefetched(path: string): Promise<Response> | undefined {
  const pending = early.get(path);
  early.delete(path);
  return pending;
}

/** Forgets every answer not taken (the visitor is not signed in, so they are refusals). */
export function dropPrefetched(): void {
  early.clear();
}

/** What a page at `pathname` reads first, besides the session. */
export function firstReads(pathname: string): string[] {
  const chat = pathname.match(/^\/chats\/([^/]+)$/)?.[1];
  if (!chat) return ['/api/chats'];
  let id: string;
  try {
    // As the chat page will ask for it: the id as the URL names it, decoded, then encoded.
    id = encodeURIComponent(decodeURIComponent(chat));
  } catch {
    return ['/api/chats'];
  }
  return ['/api/chats', `/api/chats/${id}`, `/api/chats/${id}/messages`];
}
