/**
 * The web UI's one fold (`foldChat`, docs/web-ui.md#one-fold-for-live-and-stored)
 * on what a real server streams and stores: for turns with reasoning, text,
 * several model calls and tool calls that succeed, fail and are cancelled,
 * the view folded from the turn's events equals the view folded from the
 * stored messages, and a re-attach mid-turn (stored part + replayed events)
 * equals what a tab that watched from the start shows.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'bun:test';
import {
  type Chat,
  type ChatMessage,
  type ChatView,
  foldChat,
  type TurnStreamEvent,
} from '@mango/shared';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { callTool, say, useFakeProviderServer } from '../../support/fake-provider';
import { createScenarioRegistry, type ScenarioToolProbe } from '../../support/scenario-tools';
import { readTurnEvents } from '../../support/sse-client';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const fake = useFakeProviderServer();

/** The view without what only a live turn has (its ending and fold state). */
const shown = (view: ChatView) => view.messages;

describeEachDatabase('foldChat on real turns', (_kind, current) => {
  let app: TestApp;
  let user: TestUser;
  let probe: ScenarioToolProbe;
  beforeAll(async () => {
    const scenario = createScenarioRegistry();
    probe = scenario.probe;
    app = startTestApp(current().database, {
      providers: createProviderRegistry({
        openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
      }),
      toolRegistry: scenario.registry,
    });
    user = await app.signUp();
  }, 30_000);
  afterAll(() => app.stop());

  let chat: Chat;
  beforeEach(async () => {
    chat = (await (
      await app.fetch('/api/chats', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai:gpt-5' }),
        user,
      })
    ).json()) as Chat;
  });

  const startTurn = (content: string) =>
    app.fetch(`/api/chats/${chat.id}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content }),
      user,
    });
  const messages = async () =>
    (
      (await (await app.fetch(`/api/chats/${chat.id}/messages`, { user })).json()) as {
        messages: ChatMessage[];
      }
    ).messages;

  test('a finished turn of several model calls looks the same from its events and from the store', async () => {
    fake.enqueue(
      'openai',
      {
        content: [
          { type: 'reasoning', text: 'The user wants an echo.' },
          { type: 'text', text: 'Let me echo that.' },
          { type: 'tool_call', name: 'echo', arguments: { text: 'hi' } },
          { type: 'tool_call', name: 'fail_always', arguments: { text: 'x' } },
        ],
      },
      callTool('no_args'),
      say('Done: **hi**.'),
    );
    const earlier = await messages();
    const events = await readTurnEvents(await startTurn('Echo hi.'));
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    const stored = await messages();
    const live = foldChat(earlier, { events, userText: 'Echo hi.' });
    expect(shown(foldChat(stored, { events }))).toEqual(shown(foldChat(stored)));
    expect(shown(live)).toEqual(shown(foldChat(stored)));
    const parts = live.messages.at(-1)?.parts ?? [];
    expect(parts.map((part) => (part.type === 'tool_call' ? part.call.status : part.type))).toEqual(
      ['reasoning', 'text', 'succeeded', 'failed', 'succeeded', 'text'],
    );
  });

  test('re-attached mid-turn, then after the end, it shows what a watching tab shows', async () => {
    fake.enqueue('openai', callTool('slow', { text: 'wait' }));
    const response = await startTurn('Wait.');
    await probe.slowStarted;
    const reader = readTurnEvents(response);
    // Mid-turn: what is stored so far, plus the replay of the turn's events.
    const replay = await app.fetch(`/api/chats/${chat.id}/turns/current/events`, { user });
    const storedMidTurn = await messages();
    await app.fetch(`/api/chats/${chat.id}/turns/cancel`, { method: 'POST', user });
    const events = await reader;
    const replayed = await readTurnEvents(replay);
    expect(replayed).toEqual(events);
    const cut = events.findIndex((event) => event.type === 'tool_call_completed') + 1;
    const partial: TurnStreamEvent[] = events.slice(0, cut);
    expect(foldChat(storedMidTurn, { events: partial })).toEqual(
      foldChat([], { events: partial, userText: 'Wait.' }),
    );
    const stored = await messages();
    const view = foldChat(stored, { events });
    expect(shown(view)).toEqual(shown(foldChat(stored)));
    expect(view.turn).toMatchObject({ state: 'done', status: 'cancelled' });
    const card = view.messages.at(-1)?.parts[0];
    expect(card?.type === 'tool_call' && card.call.status).toBe('aborted');
  });
});
