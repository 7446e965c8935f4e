/**
 * Two API instances on one database (docs/operations.md#the-database): a turn running on one is seen
 * by the other (one turn per chat), a cancel sent to the other stops it, and a
 * claim left by a crashed instance does not block the chat.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Chat, TurnStreamEvent } from '@mango/shared';
import { createDatabaseRunningTurns } from '../../../src/services/chat/running-turns';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { say, useFakeProviderServer } from '../../support/fake-provider';
import { readSseFrames, readTurnEvents, summedUsage } from '../../support/sse-client';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';
import { waitUntil } from '../../support/wait-until';

const fake = useFakeProviderServer();

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describeEachDatabase('chat turns across instances', (_kind, current) => {
  let first: TestApp;
  let second: TestApp;
  let alice: TestUser;
  beforeAll(async () => {
    const { database } = current();
    const providers = createProviderRegistry({
      openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
    });
    const instance = () =>
      startTestApp(database, {
        providers,
        runningTurns: createDatabaseRunningTurns(database, { heartbeatMs: 20 }),
      });
    first = instance();
    second = instance();
    alice = await first.signUp();
  });
  afterAll(async () => {
    await first.stop();
    await second.stop();
  });

  test('a turn on one instance blocks a second turn on the other, and a cancel sent to the other stops it', async () => {
    fake.reset();
    const chat = (await (
      await first.fetch('/api/chats', { ...json({ model: 'openai:gpt-5' }), user: alice })
    ).json()) as Chat;
    fake.enqueue('openai', {
      content: [{ type: 'text', text: 'a slow answer' }],
      fragmentSize: 2,
      fault: { type: 'hang', afterFrames: 6 },
    });
    const response = await first.fetch(`/api/chats/${chat.id}/turns`, {
      ...json({ content: 'go' }),
      user: alice,
    });
    const frames = readSseFrames(response);
    const events: TurnStreamEvent[] = [];
    const firstFrame = await frames.next();
    events.push(JSON.parse(firstFrame.value?.data ?? '{}'));

    const busy = await second.fetch(`/api/chats/${chat.id}/turns`, {
      ...json({ content: 'me too' }),
      user: alice,
    });
    expect(busy.status).toBe(409);
    const cancel = await second.fetch(`/api/chats/${chat.id}/turns/cancel`, {
      method: 'POST',
      user: alice,
    });
    expect(await cancel.json()).toEqual({ cancelled: true });
    for await (const frame of frames) events.push(JSON.parse(frame.data));
    expect(events.at(-1)).toEqual({
      type: 'done',
      status: 'cancelled',
      iterations: 1,
      usage: summedUsage(events),
    });

    const { database } = current();
    expect(
      await waitUntil(
        async () => (await database.db.selectFrom('chat_turns').selectAll().execute()).length === 0,
      ),
    ).toBe(true);
    const idle = await second.fetch(`/api/chats/${chat.id}/turns/cancel`, {
      method: 'POST',
      user: alice,
    });
    expect(await idle.json()).toEqual({ cancelled: false });
  });

  test('a claim whose instance stopped beating no longer blocks the chat', async () => {
    fake.reset();
    const chat = (await (
      await first.fetch('/api/chats', { ...json({ model: 'openai:gpt-5' }), user: alice })
    ).json()) as Chat;
    const { database } = current();
    const longAgo = new Date(Date.now() - 60_000).toISOString();
    await database.db
      .insertInto('chat_turns')
      .values({
        chat_id: chat.id,
        turn_id: 'crashed',
        started_at: longAgo,
        heartbeat_at: longAgo,
        cancel_requested: false,
      })
      .execute();
    const cancel = await first.fetch(`/api/chats/${chat.id}/turns/cancel`, {
      method: 'POST',
      user: alice,
    });
    expect(await cancel.json()).toEqual({ cancelled: false });
    fake.enqueue('openai', say('Back again.'));
    const events = await readTurnEvents(
      await second.fetch(`/api/chats/${chat.id}/turns`, {
        ...json({ content: 'hello?' }),
        user: alice,
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });
});
