import { type Static, Type } from '@sinclair/typebox';
import { MessagePart, MessageRole, TurnUsage } from './chat-parts';

/** Chats, their messages and turns (docs/http-api.md#routes). */

export const ChatMode = Type.Union([Type.Literal('chat'), Type.Literal('agent')], {
  description:
    'agent: tools work in the bound working directory and the prompt says so; chat: no directory.',
});
export type ChatMode = Static<typeof ChatMode>;

const Title = Type.String({ minLength: 1, maxLength: 200 });
const WorkingDirectory = Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()], {
  description: 'An existing directory on the server: absolute, or starting with ~.',
});
const ModelName = Type.String({
  minLength: 3,
  maxLength: 300,
  description:
    'provider:modelId, e.g. openai:gpt-5, anthropic:claude-sonnet-4-5, gemini:gemini-2.5-flash, openai-compatible:llama3.1.',
});

export const CreateChatBody = Type.Object(
  {
    title: Type.Optional(Title),
    mode: Type.Optional(ChatMode),
    workingDirectory: Type.Optional(WorkingDirectory),
    restrictToWorkingDirectory: Type.Optional(Type.Boolean()),
    model: Type.Optional(Type.Union([ModelName, Type.Null()])),
  },
  { additionalProperties: false, $id: 'CreateChatBody' },
);
export type CreateChatBody = Static<typeof CreateChatBody>;

export const UpdateChatBody = Type.Object(
  {
    title: Type.Optional(Title),
    mode: Type.Optional(ChatMode),
    workingDirectory: Type.Optional(WorkingDirectory),
    restrictToWorkingDirectory: Type.Optional(Type.Boolean()),
    model: Type.Optional(Type.Union([ModelName, Type.Null()])),
  },
  { additionalProperties: false, $id: 'UpdateChatBody' },
);
export type UpdateChatBody = Static<typeof UpdateChatBody>;

export const Chat = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    mode: ChatMode,
    workingDirectory: Type.Union([Type.String(), Type.Null()]),
    restrictToWorkingDirectory: Type.Boolean(),
    model: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Chat' },
);
export type Chat = Static<typeof Chat>;

export const ChatListResponse = Type.Object(
  {
    chats: Type.Array(Chat),
    /** Present when there are more chats: pass it as `cursor` for the next page. */
    nextCursor: Type.Optional(Type.String()),
  },
  { $id: 'ChatListResponse' },
);

export const DEFAULT_CHAT_PAGE_SIZE = 50;
export const MAX_CHAT_PAGE_SIZE = 200;

export const ChatListQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,4}$',
        description: `Chats per page, 1 to ${MAX_CHAT_PAGE_SIZE} (default ${DEFAULT_CHAT_PAGE_SIZE}).`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: "The previous page's nextCursor: the chats after it.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ChatListQuery = Static<typeof ChatListQuery>;
export type ChatListResponse = Static<typeof ChatListResponse>;

export const ChatMessage = Type.Object(
  {
    id: Type.String(),
    chatId: Type.String(),
    role: MessageRole,
    parts: Type.Array(MessagePart),
    /** An assistant message's model call: the tokens its provider reported. */
    usage: Type.Optional(TurnUsage),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'ChatMessage' },
);
export type ChatMessage = Static<typeof ChatMessage>;

export const ChatMessagesResponse = Type.Object(
  { messages: Type.Array(ChatMessage) },
  { $id: 'ChatMessagesResponse' },
);
export type ChatMessagesResponse = Static<typeof ChatMessagesResponse>;

export const CreateTurnBody = Type.Object(
  {
    content: Type.String({ minLength: 1, maxLength: 1_000_000, description: 'The user message.' }),
    model: Type.Optional(ModelName),
    maxIterations: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description: 'Model calls that may use tools (default 25).',
      }),
    ),
  },
  { additionalProperties: false, $id: 'CreateTurnBody' },
);
export type CreateTurnBody = Static<typeof CreateTurnBody>;

export const CancelTurnResponse = Type.Object(
  { cancelled: Type.Boolean({ description: 'Whether a running turn was found and cancelled.' }) },
  { $id: 'CancelTurnResponse' },
);
export type CancelTurnResponse = Static<typeof CancelTurnResponse>;

export const TurnEventsParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  turnId: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'A turn id (from turn_started), or "current": the running turn, else the latest.',
  }),
});
export type TurnEventsParams = Static<typeof TurnEventsParams>;

export const TurnEventsQuery = Type.Object(
  {
    lastEventId: Type.Optional(
      Type.String({
        maxLength: 300,
        description:
          'Resume after this event id (as the Last-Event-ID header does; the header wins when both are given).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TurnEventsQuery = Static<typeof TurnEventsQuery>;

export const ProvidersResponse = Type.Object(
  {
    providers: Type.Array(
      Type.Object({
        id: Type.String({ description: 'Use as the provider part of a model name.' }),
      }),
    ),
  },
  { $id: 'ProvidersResponse' },
);
export type ProvidersResponse = Static<typeof ProvidersResponse>;
