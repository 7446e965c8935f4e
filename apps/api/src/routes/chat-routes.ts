/**
 * The chat routes (SPEC §15): chats, their messages, and turns streamed as
 * Server-Sent Events. Every route acts for the signed-in user only; another
 * user's chat answers 404 like a missing one.
 */
import {
  CancelTurnResponse,
  Chat,
  ChatCapabilities,
  ChatCapabilitiesQuery,
  ChatListResponse,
  ChatMessagesResponse,
  CreateChatBody,
  CreateTurnBody,
  ProvidersResponse,
  UpdateChatBody,
} from '@mango/shared';
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import type { ChatCapabilitiesService } from '../services/chat/chat-capabilities';
import type { ChatService } from '../services/chat/chat-service';
import type { ChatTurnService } from '../services/chat/chat-turn-service';
import type { ProviderRegistry } from '../services/providers/provider-registry';
import { createTurnEventStream } from './turn-event-stream';

export interface ChatRoutesDependencies {
  chats: ChatService;
  turns: ChatTurnService;
  capabilities: ChatCapabilitiesService;
  providers: ProviderRegistry;
  /** The signed-in user's id (the authentication hook has already run). */
  userIdOf: (request: Request) => string;
}

const ChatParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export function createChatRoutes(deps: ChatRoutesDependencies) {
  const { chats, turns, userIdOf } = deps;
  return new Elysia({ name: 'mango/chat-routes' })
    .get(
      '/providers',
      (): ProvidersResponse => ({ providers: deps.providers.offered().map((id) => ({ id })) }),
      {
        response: ProvidersResponse,
        detail: {
          summary: 'The model providers this server offers (the provider part of provider:modelId)',
        },
      },
    )
    .post(
      '/chats',
      async ({ body, request, set }) => {
        const chat = await chats.create(userIdOf(request), body);
        set.status = 201;
        return chat;
      },
      { body: CreateChatBody, response: { 201: Chat }, detail: { summary: 'Create a chat' } },
    )
    .get(
      '/chats',
      async ({ request }): Promise<ChatListResponse> => ({
        chats: await chats.list(userIdOf(request)),
      }),
      {
        response: ChatListResponse,
        detail: { summary: "The caller's chats, most recently active first" },
      },
    )
    .get('/chats/:id', ({ params, request }) => chats.get(userIdOf(request), params.id), {
      params: ChatParams,
      response: Chat,
      detail: { summary: 'Read a chat' },
    })
    .patch(
      '/chats/:id',
      ({ params, body, request }) => chats.update(userIdOf(request), params.id, body),
      {
        params: ChatParams,
        body: UpdateChatBody,
        response: Chat,
        detail: { summary: 'Change a chat' },
      },
    )
    .delete(
      '/chats/:id',
      async ({ params, request, set }) => {
        await chats.delete(userIdOf(request), params.id);
        set.status = 204;
      },
      { params: ChatParams, detail: { summary: 'Delete a chat and its messages' } },
    )
    .get(
      '/chats/:id/messages',
      async ({ params, request }): Promise<ChatMessagesResponse> => ({
        messages: await chats.messages(userIdOf(request), params.id),
      }),
      {
        params: ChatParams,
        response: ChatMessagesResponse,
        detail: { summary: 'The stored messages with their parts' },
      },
    )
    .get(
      '/chats/:id/capabilities',
      ({ params, query, request }) =>
        deps.capabilities.inspect(userIdOf(request), params.id, query),
      {
        params: ChatParams,
        query: ChatCapabilitiesQuery,
        response: ChatCapabilities,
        detail: {
          summary: "The capabilities inspector: the tools the chat's next turn would offer",
          description:
            "Each tool with its source (builtin or server), state (enabled, disabled, unavailable) and the reason; each MCP server with its state and health. ?include=wire adds the exact tool fields the chat's provider would receive (?model= builds them for another model).",
        },
      },
    )
    .post(
      '/chats/:id/turns',
      async ({ params, body, request }) => {
        const turn = await turns.prepare(userIdOf(request), params.id, body);
        return createTurnEventStream(turn, request);
      },
      {
        params: ChatParams,
        body: CreateTurnBody,
        detail: {
          summary: 'Run a turn; answers text/event-stream with the turn events, ending with done',
          description:
            'Events: text_delta, reasoning_delta, tool_call_started, tool_call_arguments_delta, tool_call_completed, tool_call_progress, usage, turn_completed, error, tool_result, iteration_limit, done. Closing the connection cancels the turn.',
        },
      },
    )
    .post(
      '/chats/:id/turns/cancel',
      async ({ params, request }): Promise<CancelTurnResponse> => ({
        cancelled: await turns.cancel(userIdOf(request), params.id),
      }),
      {
        params: ChatParams,
        response: CancelTurnResponse,
        detail: { summary: 'Cancel the running turn' },
      },
    );
}
