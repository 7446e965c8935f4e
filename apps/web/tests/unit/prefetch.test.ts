/**
 * The page's first requests: which paths a URL reads first, and each prefetched answer handed out
 * once, the next read going to the server (a real local server counts the requests).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { dropPrefetched, firstReads, prefetch, takePrefetched } from '../../src/lib/prefetch';

const hits = new Map<string, number>();
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request) {
    const path = new URL(request.url).pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    return Response.json({ path, accept: request.headers.get('accept') });
  },
});
afterAll(() => server.stop(true));
const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;

describe('the first reads of a URL', () => {
  test("a chat's URL reads the chat list, the chat and its messages, the id as the page will ask for it", () => {
    expect(firstReads('/chats/chat_1')).toEqual([
      '/api/chats',
      '/api/chats/chat_1',
      '/api/chats/chat_1/messages',
    ]);
    expect(firstReads('/chats/a%20b')).toEqual([
      '/api/chats',
      '/api/chats/a%20b',
      '/api/chats/a%20b/messages',
    ]);
  });

  test('any other page reads the chat list; a malformed chat id reads nothing of it', () => {
    expect(firstReads('/')).toEqual(['/api/chats']);
    expect(firstReads('/settings/tools')).toEqual(['/api/chats']);
    expect(firstReads('/chats/%E0%A4%A')).toEqual(['/api/chats']);
  });
});

describe('prefetched answers', () => {
  test('each is sent once, with the headers of a GET, and handed out once', async () => {
    prefetch([url('/a'), url('/b')]);
    prefetch([url('/a')]);
    const answer = await takePrefetched(url('/a'));
    expect(await answer?.json()).toEqual({ path: '/a', accept: 'application/json' });
    expect(takePrefetched(url('/a'))).toBeUndefined();
    await takePrefetched(url('/b'));
    expect(hits.get('/a')).toBe(1);
    expect(hits.get('/b')).toBe(1);
  });

  test('dropped ones are not handed out', async () => {
    prefetch([url('/c')]);
    dropPrefetched();
    expect(takePrefetched(url('/c'))).toBeUndefined();
  });
});
