import { afterAll, beforeAll, expect, test } from 'bun:test';
import {
  DEFAULT_BODY_LIMIT_BYTES,
  MAX_JSON_DEPTH,
  SMALL_BODY_LIMIT_BYTES,
  TURN_BODY_LIMIT_BYTES,
} from '../../../src/routes/request-body';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const json = { 'content-type': 'application/json' };

/** A body that never ends: a client that stalls mid-upload. */
function stalledBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"title":"'));
    },
  });
}

/** A body of `chunks` pieces of 64 KiB, sent without a Content-Length. */
function chunkedBody(chunks: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const piece = new TextEncoder().encode(`"${'a'.repeat(64 * 1024 - 3)}",`);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += 1;
      if (pulled === 1) controller.enqueue(new TextEncoder().encode('['));
      if (pulled > chunks) controller.close();
      else controller.enqueue(piece);
    },
  });
  return { stream, pulled: () => pulled };
}

describeEachDatabase('request bodies', (_kind, current) => {
  let app: TestApp;
  let user: TestUser;
  let chatId: string;

  beforeAll(async () => {
    app = startTestApp(current().database);
    user = await app.signUp();
    const chat = await app.fetch('/api/chats', {
      method: 'POST',
      headers: json,
      body: '{"title":"limits"}',
      user,
    });
    chatId = ((await chat.json()) as { id: string }).id;
  }, 30_000);
  afterAll(() => app.stop());

  // The probe that froze the server for ~9.6 s and answered 500: 200 KB of brackets.
  const nested = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  const alsoDeep = '['.repeat(1000);

  const expectTooDeep = async (response: Response) => {
    expect(response.status).toBe(422);
    const body = (await response.json()) as {
      error: { code: string; message: string; details: Record<string, unknown> };
    };
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details).toEqual({ field: 'body', maxDepth: MAX_JSON_DEPTH });
    expect(body.error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  };

  test('the 200 KB nested body answers within 100 ms on every JSON route, and /api/health keeps answering', async () => {
    // Small routes refuse its size unread (413); the turn route takes 8 MiB, so its depth (422).
    const routes: [string, string, number][] = [
      ['PUT', '/api/settings/tools/grep', 413],
      ['POST', '/api/chats', 413],
      ['PATCH', `/api/chats/${chatId}`, 413],
      ['POST', '/api/auth/sign-in/email', 413],
      ['POST', `/api/chats/${chatId}/turns`, 422],
    ];
    for (const [method, path, status] of routes) {
      const startedAt = performance.now();
      const [response, health] = await Promise.all([
        app.fetch(path, { method, headers: json, body: nested, user }),
        app.fetch('/api/health'),
      ]);
      const elapsedMs = performance.now() - startedAt;
      expect(response.status).toBe(status);
      if (status === 422) await expectTooDeep(response);
      expect(health.status).toBe(200);
      expect(elapsedMs).toBeLessThan(100);
    }
  });

  test('a deep body within the size limit answers 422 on every JSON route, sign-in included', async () => {
    const routes: [string, string][] = [
      ['PUT', '/api/settings/tools/grep'],
      ['POST', '/api/chats'],
      ['PATCH', `/api/chats/${chatId}`],
      ['POST', '/api/auth/sign-in/email'],
      ['POST', `/api/chats/${chatId}/turns`],
    ];
    for (const [method, path] of routes) {
      await expectTooDeep(await app.fetch(path, { method, headers: json, body: alsoDeep, user }));
    }
  });

  test('nesting up to the limit is accepted; brackets inside strings do not count', async () => {
    const withinLimit = `{"title":"${'['.repeat(150)}"}`;
    const created = await app.fetch('/api/chats', {
      method: 'POST',
      headers: json,
      body: withinLimit,
      user,
    });
    expect(created.status).toBe(201);
    // 64 levels reach the contract check (which refuses the shape), 65 are refused before it.
    const atLimit = `{"title":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`;
    const overLimit = `{"title":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`;
    const at = await app.fetch('/api/chats', {
      method: 'POST',
      headers: json,
      body: atLimit,
      user,
    });
    expect(at.status).toBe(400);
    expect(((await at.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    const over = await app.fetch('/api/chats', {
      method: 'POST',
      headers: json,
      body: overLimit,
      user,
    });
    expect(over.status).toBe(422);
  });

  test('a body over its route limit answers 413 with the limit, declared or not', async () => {
    const title = 'a'.repeat(SMALL_BODY_LIMIT_BYTES);
    const declared = await app.fetch('/api/chats', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ title }),
      user,
    });
    expect(declared.status).toBe(413);
    const body = (await declared.json()) as {
      error: { code: string; message: string; details: Record<string, unknown> };
    };
    expect(body.error).toMatchObject({
      code: 'payload_too_large',
      retryable: false,
      details: { field: 'body', maxBytes: SMALL_BODY_LIMIT_BYTES },
    });
    expect(body.error.message).toContain('16 KiB');

    const settings = await app.fetch('/api/settings/tools/grep', {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ parameters: { note: title } }),
      user,
    });
    expect(settings.status).toBe(413);

    // No Content-Length: read until the limit, then refused without reading the rest.
    const { stream, pulled } = chunkedBody(1600); // 100 MiB if it were all sent
    const chunked = await app.fetch(`/api/chats/${chatId}/turns`, {
      method: 'POST',
      headers: json,
      body: stream,
      user,
      duplex: 'half',
    } as RequestInit & { user: TestUser });
    expect(chunked.status).toBe(413);
    expect(
      ((await chunked.json()) as { error: { details: { maxBytes: number } } }).error.details
        .maxBytes,
    ).toBe(TURN_BODY_LIMIT_BYTES);
    expect(pulled()).toBeLessThan(1600);
  });

  test('a route without a limit of its own takes the default', async () => {
    // The cancel route takes no body; a body sent anyway is still bounded.
    const response = await app.fetch(`/api/chats/${chatId}/turns/cancel`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ padding: 'a'.repeat(DEFAULT_BODY_LIMIT_BYTES) }),
      user,
    });
    expect(response.status).toBe(413);
    const empty = await app.fetch(`/api/chats/${chatId}/turns/cancel`, { method: 'POST', user });
    expect(empty.status).toBe(200);
  });

  test('a JSON body sent as another content type, or with none, answers 415', async () => {
    // A byte body goes out with no Content-Type at all.
    const bytes = new TextEncoder().encode('{"enabled":true}');
    const sends: { headers: Record<string, string>; body: BodyInit }[] = [
      { headers: { 'content-type': 'text/plain' }, body: '{"enabled":true}' },
      { headers: {}, body: bytes },
      { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'enabled=true' },
    ];
    for (const { headers, body: sent } of sends) {
      const response = await app.fetch('/api/settings/tools/get_current_datetime', {
        method: 'PUT',
        headers,
        body: sent,
        user,
      });
      expect(response.status).toBe(415);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('unsupported_media_type');
      expect(body.error.message).toContain('Content-Type: application/json');
    }
    const signIn = await app.fetch('/api/auth/sign-in/email', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ email: user.email, password: 'x' }),
    });
    expect(signIn.status).toBe(415);
    const withCharset = await app.fetch('/api/settings/tools/get_current_datetime', {
      method: 'PUT',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: '{"enabled":true}',
      user,
    });
    expect(withCharset.status).toBe(200);
  });

  test('bytes that are not UTF-8 JSON answer 400 invalid_request', async () => {
    const notJson = await app.fetch('/api/chats', {
      method: 'POST',
      headers: json,
      body: '{"title": nope}',
      user,
    });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { message: string } }).error.message).toContain(
      'not valid JSON',
    );
    const notUtf8 = await app.fetch('/api/chats', {
      method: 'POST',
      headers: json,
      body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
      user,
    });
    expect(notUtf8.status).toBe(400);
  });

  test('a client stalled mid-upload holds no other request up', async () => {
    const controller = new AbortController();
    const stalled = app
      .fetch('/api/chats', {
        method: 'POST',
        headers: json,
        body: stalledBody(),
        user,
        signal: controller.signal,
        duplex: 'half',
      } as RequestInit & { user: TestUser })
      .catch(() => undefined);
    for (let index = 0; index < 5; index += 1) {
      expect((await app.fetch('/api/health')).status).toBe(200);
      expect((await app.fetch('/api/chats', { user })).status).toBe(200);
    }
    controller.abort();
    await stalled;
  });
});
