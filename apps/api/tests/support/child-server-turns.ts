/**
 * Drives a server started as a child process (`startServerProcess`) the way a
 * client would: sign up, switch a tool on, make a chat, run one turn whose
 * model (the fake provider) calls one tool, and hand back that tool's result.
 */
import { expect } from 'bun:test';
import type { TurnStreamEvent } from '@mango/shared';
import { callTool, type FakeProviderServer, say } from './fake-provider';
import { readTurnEvents } from './sse-client';
import { cookieFrom, TEST_PASSWORD } from './test-app';

export interface ChildServerClient {
  cookie: string;
  call(path: string, method: string, body?: unknown): Promise<Response>;
}

export async function signUpOnChild(url: string, email: string): Promise<ChildServerClient> {
  const signUp = await fetch(`${url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, password: TEST_PASSWORD, name: 'Probe' }),
  });
  expect(signUp.status).toBe(200);
  const cookie = cookieFrom(signUp);
  return {
    cookie,
    call: (path, method, body) =>
      fetch(`${url}${path}`, {
        method,
        headers: {
          cookie,
          origin: url,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
  };
}

export type ToolResultEvent = Extract<TurnStreamEvent, { type: 'tool_result' }>;

/** One turn in a new chat in which the model calls `tool` with `args`; resolves to its result. */
export async function runToolThroughTurn(
  client: ChildServerClient,
  fake: FakeProviderServer,
  tool: string,
  args: Record<string, unknown>,
  chat: Record<string, unknown> = {},
): Promise<ToolResultEvent> {
  const created = await client.call('/api/chats', 'POST', { model: 'openai:gpt-5', ...chat });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  fake.enqueue('openai', callTool(tool, args), say('done'));
  const turn = await client.call(`/api/chats/${id}/turns`, 'POST', { content: 'go' });
  expect(turn.status).toBe(200);
  const events = await readTurnEvents(turn);
  fake.requests('openai');
  const result = events.find((event): event is ToolResultEvent => event.type === 'tool_result');
  if (!result) throw new Error(`The turn ran no tool: ${JSON.stringify(events)}`);
  return result;
}
