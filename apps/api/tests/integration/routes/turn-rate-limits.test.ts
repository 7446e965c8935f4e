/**
 * Per-user turn limits (docs/security.md#rate-limits) over HTTP, on two
 * instances sharing one database: starts per minute and turns running at
 * once hold across the instances, answer 429 with Retry-After, and leave
 * other users alone.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Chat } from '@mango/shared';
import { createDatabaseRunningTurns } from '../../../src/services/chat/running-turns';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { say, useFakeProviderServer } from '../../support/fake-provider';
import { readSseFrames, readTurnEvents } from '../../support/sse-client';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const fake = useFakeProviderServer();

const post = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describeEachDatabase('turn rate limits', (_kind, current) => {
  let clock = Date.now();
  let first: TestApp;
  let second: TestApp;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    const { database } = current();
    const providers = createProviderRegistry({
      openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
    });
    const instance = () =>
      startTestApp(database, {
        providers,
        now: () => clock,
        runningTurns: createDatabaseRunningTurns(database, { heartbeatMs: 20, now: () => clock }),
        turnLimits: { startsPerMinute: 3, concurrent: 1 },
      });
    first = instance();
    second = instance();
    alice = await first.signUp();
    bob = await first.signUp();
  });
  afterAll(async () => {
    await first.stop();
    await second.stop();
  });

  const newChat = async (app: TestApp, user: TestUser) =>
    (await (
      await app.fetch('/api/chats', { ...post({ model: 'openai:gpt-5' }), user })
    ).json()) as Chat;
  const runTurn = async (app: TestApp, user: TestUser, chat: Chat) => {
    fake.enqueue('openai', say('Done.'));
    const response = await app.fetch(`/api/chats/${chat.id}/turns`, {
      ...post({ content: 'hi' }),
      user,
    });
    if (response.status === 200) await readTurnEvents(response);
    return response;
  };

  test('the 4th start within a minute answers 429 with Retry-After, on either instance; a minute later it passes', async () => {
    fake.reset();
    const chat = await newChat(first, alice);
    expect((await runTurn(first, alice, chat)).status).toBe(200);
    clock += 10_000;
    expect((await runTurn(second, alice, chat)).status).toBe(200);
    expect((await runTurn(first, alice, chat)).status).toBe(200);
    const refused = await runTurn(second, alice, chat);
    expect(refused.status).toBe(429);
    // The oldest of the three started 10 s ago: it leaves the window in 50 s.
    expect(refused.headers.get('retry-after')).toBe('50');
    const body = (await refused.json()) as {
      error: {
        code: string;
        retryable: boolean;
        message: string;
        details: Record<string, unknown>;
      };
    };
    expect(body.error).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      details: { limit: 'turns_per_minute', retryAfterSeconds: 50 },
    });
    expect(body.error.message).toContain('3 turns in the last minute');
    // A refused start stores nothing and does not count.
    const messages = await first.fetch(`/api/chats/${chat.id}/messages`, { user: alice });
    expect(((await messages.json()) as { messages: unknown[] }).messages).toHaveLength(6);

    // Bob has limits of his own.
    expect((await runTurn(first, bob, await newChat(first, bob))).status).toBe(200);

    clock += 50_000;
    expect((await runTurn(first, alice, chat)).status).toBe(200);
    clock += 120_000;
  });

  test('a second turn running at once answers 429 on the other instance; once the first ends, it starts', async () => {
    fake.reset();
    const busyChat = await newChat(first, alice);
    const otherChat = await newChat(second, alice);
    fake.enqueue('openai', {
      content: [{ type: 'text', text: 'a slow answer' }],
      fragmentSize: 2,
      fault: { type: 'hang', afterFrames: 6 },
    });
    const running = await first.fetch(`/api/chats/${busyChat.id}/turns`, {
      ...post({ content: 'go' }),
      user: alice,
    });
    expect(running.status).toBe(200);
    const frames = readSseFrames(running);
    await frames.next();

    const refused = await second.fetch(`/api/chats/${otherChat.id}/turns`, {
      ...post({ content: 'me too' }),
      user: alice,
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(
      ((await refused.json()) as { error: { details: { limit: string } } }).error.details.limit,
    ).toBe('concurrent_turns');
    // The running chat itself answers 409 as before: the claim refuses it, not the limit.
    const sameChat = await second.fetch(`/api/chats/${busyChat.id}/turns`, {
      ...post({ content: 'again' }),
      user: alice,
    });
    expect(sameChat.status).toBe(409);
    // Another user is not held up by Alice's turn.
    expect((await runTurn(second, bob, await newChat(second, bob))).status).toBe(200);

    await second.fetch(`/api/chats/${busyChat.id}/turns/cancel`, { method: 'POST', user: alice });
    for await (const _frame of frames) {
      // Drain until the cancelled turn's done.
    }
    expect((await runTurn(second, alice, otherChat)).status).toBe(200);
  });

  test('simultaneous starts in different chats let exactly the allowed number through', async () => {
    fake.reset();
    clock += 120_000;
    const chats = await Promise.all([0, 1, 2, 3].map(() => newChat(first, bob)));
    for (let index = 0; index < chats.length; index += 1) {
      fake.enqueue('openai', {
        content: [{ type: 'text', text: 'slow' }],
        fragmentSize: 1,
        fault: { type: 'hang', afterFrames: 6 },
      });
    }
    const responses = await Promise.all(
      chats.map((chat, index) =>
        (index % 2 === 0 ? first : second).fetch(`/api/chats/${chat.id}/turns`, {
          ...post({ content: 'race' }),
          user: bob,
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 429, 429, 429]);
    for (const [index, response] of responses.entries()) {
      if (response.status !== 200) continue;
      await first.fetch(`/api/chats/${chats[index]?.id}/turns/cancel`, {
        method: 'POST',
        user: bob,
      });
      await readTurnEvents(response);
    }
  });
});
