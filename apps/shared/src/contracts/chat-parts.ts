import { type Static, Type } from '@sinclair/typebox';
import { ErrorCode } from './errors';

/**
 * Message parts (docs/chat-turns.md#what-is-stored-and-streamed): what a stored message is made of, what the turn
 * loop hands to a provider adapter as history, and what the SSE stream and
 * `GET /api/chats/:id/messages` show. One vocabulary, one set of field names.
 */

/**
 * Opaque data a provider needs replayed verbatim on a later request (a Gemini
 * thought signature, an Anthropic thinking signature), keyed by provider id so
 * that another provider ignores it.
 */
export const ProviderMetadata = Type.Record(
  Type.String(),
  Type.Record(Type.String(), Type.Unknown()),
);
export type ProviderMetadata = Static<typeof ProviderMetadata>;

export const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String() });
export type TextPart = Static<typeof TextPart>;

export const ReasoningPart = Type.Object({
  type: Type.Literal('reasoning'),
  text: Type.String(),
  providerMetadata: Type.Optional(ProviderMetadata),
});
export type ReasoningPart = Static<typeof ReasoningPart>;

export const ImagePart = Type.Object({
  type: Type.Literal('image'),
  /** `/api/images/:id` for a stored image, or a `data:` URL. */
  url: Type.String(),
  mediaType: Type.Optional(Type.String()),
  alt: Type.Optional(Type.String()),
  /** The stored image's id, for an image in the images store. */
  imageId: Type.Optional(Type.String()),
  /**
   * Set on an image a tool attached (it follows that call's `tool_call` part).
   * Such an image is not replayed to a model: the call's result carries its reference.
   */
  toolCallId: Type.Optional(Type.String()),
});
export type ImagePart = Static<typeof ImagePart>;

export const ToolCallStatus = Type.Union(
  [
    Type.Literal('running'),
    Type.Literal('succeeded'),
    Type.Literal('failed'),
    Type.Literal('aborted'),
  ],
  { description: 'running while it executes; then succeeded, failed (see errorCode) or aborted.' },
);
export type ToolCallStatus = Static<typeof ToolCallStatus>;

export const ToolCallPart = Type.Object({
  type: Type.Literal('tool_call'),
  toolCallId: Type.String(),
  name: Type.String(),
  /** The arguments exactly as the model produced them: a JSON text, possibly invalid. */
  arguments: Type.String(),
  status: ToolCallStatus,
  /** A tool error code (`validation_failed`, `timeout`, `aborted`, …) when the call failed. */
  errorCode: Type.Optional(ErrorCode),
  durationMs: Type.Number({ minimum: 0 }),
  providerMetadata: Type.Optional(ProviderMetadata),
});
export type ToolCallPart = Static<typeof ToolCallPart>;

export const ToolResultPart = Type.Object({
  type: Type.Literal('tool_result'),
  toolCallId: Type.String(),
  /** The called tool's name (Gemini needs it to answer a call). */
  name: Type.String(),
  /** The serialised result (JSON text), or the error the model reads. */
  content: Type.String(),
  isError: Type.Boolean(),
});
export type ToolResultPart = Static<typeof ToolResultPart>;

export const UserMessagePart = Type.Union([TextPart, ImagePart]);
export type UserMessagePart = Static<typeof UserMessagePart>;
export const AssistantMessagePart = Type.Union([TextPart, ReasoningPart, ToolCallPart, ImagePart]);
export type AssistantMessagePart = Static<typeof AssistantMessagePart>;

export const MessageRole = Type.Union([
  Type.Literal('user'),
  Type.Literal('assistant'),
  Type.Literal('tool'),
]);
export type MessageRole = Static<typeof MessageRole>;

/** Tokens used: one model call's (stored with its assistant message), or a whole turn's, summed. */
export const TurnUsage = Type.Object({
  inputTokens: Type.Integer({ minimum: 0 }),
  outputTokens: Type.Integer({ minimum: 0 }),
  totalTokens: Type.Integer({ minimum: 0 }),
  /** Where the provider reports them. */
  reasoningTokens: Type.Optional(Type.Integer({ minimum: 0 })),
  cachedInputTokens: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type TurnUsage = Static<typeof TurnUsage>;

/** One message of a conversation, as the loop and the adapters see it. */
export const ConversationMessage = Type.Union([
  Type.Object({ role: Type.Literal('user'), parts: Type.Array(UserMessagePart) }),
  Type.Object({
    role: Type.Literal('assistant'),
    parts: Type.Array(AssistantMessagePart),
    /** What the model call that wrote this message used, as its provider reported it. */
    usage: Type.Optional(TurnUsage),
  }),
  Type.Object({ role: Type.Literal('tool'), parts: Type.Array(ToolResultPart) }),
]);
export type ConversationMessage = Static<typeof ConversationMessage>;
export type UserMessage = Extract<ConversationMessage, { role: 'user' }>;
export type AssistantMessage = Extract<ConversationMessage, { role: 'assistant' }>;
export type ToolMessage = Extract<ConversationMessage, { role: 'tool' }>;
/** Any part of any stored message. */
export const MessagePart = Type.Union([
  TextPart,
  ReasoningPart,
  ToolCallPart,
  ToolResultPart,
  ImagePart,
]);
export type MessagePart = Static<typeof MessagePart>;
