/**
 * The chat routes (docs/http-api.md#routes): chats, their messages, and turns streamed as
 * Server-Sent Events. Every route acts for the signed-in user only; another
 * user's chat answers 404 like a missing one.
 */
import {
  CancelTurnResponse,
  Chat,
  ChatCapabilities,
  ChatCapabilitiesQuery,
  ChatListQuery,
  ChatListResponse,
  ChatMessagesResponse,
  CreateChatBody,
  CreateTurnBody,
  ProvidersResponse,
  TurnEventsParams,
  TurnEventsQuery,
  TurnStreamEvent,
  UpdateChatBody,
} from '@mango/shared';
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { getRequestContext } from '../request-context';
import type { ChatCapabilitiesService } from '../services/chat/chat-capabilities';
import type { ChatService } from '../services/chat/chat-service';
import type { ChatTurnService } from '../services/chat/chat-turn-service';
import type { ProviderRegistry } from '../services/providers/provider-registry';
import { currentUser } from './authentication';
import { errorResponses } from './error-responses';
import { createTurnEventStream, TURN_STREAM_HEARTBEAT_MS } from './turn-event-stream';

export interface ChatRoutesDependencies {
  chats: ChatService;
  turns: ChatTurnService;
  capabilities: ChatCapabilitiesService;
  providers: ProviderRegistry;
}

const ChatParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

/**
 * The OpenAPI description of a turn's event stream (the framework describes
 * JSON replies only; `openapi-routes.ts` merges this into the operation).
 */
const eventStreamResponse = {
  'x-event-stream': {
    description: `Server-Sent Events, one frame per turn event: "id: <turnId>:<seq>", "event: <type>", "data: <the event as JSON>". The first event is turn_started, the last done; a comment line (": keep-alive") comes every ${TURN_STREAM_HEARTBEAT_MS / 1000} s. Closing the stream does not stop the turn; reconnect to GET /api/chats/{id}/turns/{turnId}/events with Last-Event-ID to resume.`,
    content: { 'text/event-stream': { schema: TurnStreamEvent } },
  },
};

/** Follows for as long as the client is connected. */
function followerOf(request: Request): AbortController {
  const follower = new AbortController();
  request.signal.addEventListener('abort', () => follower.abort(), { once: true });
  return follower;
}

export function createChatRoutes(deps: ChatRoutesDependencies) {
  const { chats, turns } = deps;
  return new Elysia({ name: 'mango/chat-routes' })
    .use(currentUser())
    .get(
      '/providers',
      (): ProvidersResponse => ({ providers: deps.providers.offered().map((id) => ({ id })) }),
      {
        response: { 200: ProvidersResponse, ...errorResponses(401) },
        detail: {
          summary: 'The model providers this server offers (the provider part of provider:modelId)',
        },
      },
    )
    .post(
      '/chats',
      async ({ body, user, set }) => {
        const chat = await chats.create(user.id, body);
        set.status = 201;
        return chat;
      },
      {
        body: CreateChatBody,
        response: { 201: Chat, ...errorResponses(400, 401, 413, 415, 422) },
        detail: { summary: 'Create a chat' },
      },
    )
    .get('/chats', ({ user, query }): Promise<ChatListResponse> => chats.list(user.id, query), {
      query: ChatListQuery,
      response: { 200: ChatListResponse, ...errorResponses(400, 401, 422) },
      detail: {
        summary: "The caller's chats, most recently active first, a page at a time",
        description:
          'At most `limit` chats (default 50, up to 200); `nextCursor`, when present, gives the next page as `?cursor=`.',
      },
    })
    .get('/chats/:id', ({ params, user }) => chats.get(user.id, params.id), {
      params: ChatParams,
      response: { 200: Chat, ...errorResponses(401, 404) },
      detail: { summary: 'Read a chat' },
    })
    .patch('/chats/:id', ({ params, body, user }) => chats.update(user.id, params.id, body), {
      params: ChatParams,
      body: UpdateChatBody,
      response: { 200: Chat, ...errorResponses(400, 401, 404, 413, 415, 422) },
      detail: { summary: 'Change a chat' },
    })
    .delete(
      '/chats/:id',
      async ({ params, user, set }) => {
        await chats.delete(user.id, params.id);
        set.status = 204;
      },
      {
        params: ChatParams,
        response: { 204: Type.Void(), ...errorResponses(401, 404) },
        detail: { summary: 'Delete a chat and its messages' },
      },
    )
    .get(
      '/chats/:id/messages',
      async ({ params, user }): Promise<ChatMessagesResponse> => ({
        messages: await chats.messages(user.id, params.id),
      }),
      {
        params: ChatParams,
        response: { 200: ChatMessagesResponse, ...errorResponses(401, 404) },
        detail: { summary: 'The stored messages with their parts' },
      },
    )
    .get(
      '/chats/:id/capabilities',
      ({ params, query, user }) => deps.capabilities.inspect(user.id, params.id, query),
      {
        params: ChatParams,
        query: ChatCapabilitiesQuery,
        response: { 200: ChatCapabilities, ...errorResponses(400, 401, 404, 422) },
        detail: {
          summary: "The capabilities inspector: the tools the chat's next turn would offer",
          description:
            "Each tool with its source (builtin or server), state (enabled, disabled, unavailable) and the reason; each MCP server with its state and health. ?include=wire adds the exact tool fields the chat's provider would receive (?model= builds them for another model).",
        },
      },
    )
    .post(
      '/chats/:id/turns',
      async ({ params, body, user, request }) => {
        const { requestId } = getRequestContext(request);
        const turn = await turns.start(user.id, params.id, body, { requestId });
        const follower = followerOf(request);
        const { events } = await turns.events(
          user.id,
          params.id,
          turn.id,
          undefined,
          follower.signal,
        );
        return createTurnEventStream({ turnId: turn.id, events, follower });
      },
      {
        params: ChatParams,
        body: CreateTurnBody,
        response: errorResponses(400, 401, 404, 409, 413, 415, 422),
        detail: {
          summary:
            'Start a turn and follow it: text/event-stream of the turn events, from turn_started to done',
          description:
            'Events: turn_started, text_delta, reasoning_delta, tool_call_started, tool_call_arguments_delta, tool_call_completed, tool_call_progress, usage, turn_completed, error, tool_result, iteration_limit, done. The turn belongs to the server: closing the connection only stops following it (re-attach with GET /api/chats/{id}/turns/{turnId}/events); POST /api/chats/{id}/turns/cancel stops it.',
          ...eventStreamResponse,
        },
      },
    )
    .get(
      '/chats/:id/turns/:turnId/events',
      async ({ params, query, user, request }) => {
        const follower = followerOf(request);
        const lastEventId = request.headers.get('last-event-id') ?? query.lastEventId;
        const { turn, events } = await turns.events(
          user.id,
          params.id,
          params.turnId,
          lastEventId,
          follower.signal,
        );
        return createTurnEventStream({ turnId: turn.id, events, follower });
      },
      {
        params: TurnEventsParams,
        query: TurnEventsQuery,
        response: errorResponses(400, 401, 404),
        detail: {
          summary: 'Re-attach to a turn: replay its events, then follow it live until done',
          description:
            '`turnId` is a turn id from turn_started, or "current" (the running turn, else the latest one). Without Last-Event-ID (header, or ?lastEventId=) every event is replayed from turn_started; with one, the events after it. A turn that has ended replays and ends with its done. Works on any instance sharing the database. Only the latest turn of a chat is kept.',
          ...eventStreamResponse,
        },
      },
    )
    .post(
      '/chats/:id/turns/cancel',
      async ({ params, user }): Promise<CancelTurnResponse> => ({
        cancelled: await turns.cancel(user.id, params.id),
      }),
      {
        params: ChatParams,
        response: { 200: CancelTurnResponse, ...errorResponses(401, 404) },
        detail: { summary: 'Cancel the running turn' },
      },
    );
}
