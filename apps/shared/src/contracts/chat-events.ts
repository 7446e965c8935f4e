import { type Static, Type } from '@sinclair/typebox';
import { ProviderMetadata, TurnUsage } from './chat-parts';
import { ErrorCode, ErrorDetails } from './errors';

/**
 * The event vocabulary of a chat turn (docs/chat-turns.md#the-provider-contract, docs/chat-turns.md#what-is-stored-and-streamed). Provider adapters
 * emit the provider events; the turn loop forwards them and adds
 * `tool_result`, `iteration_limit` and `done`; the SSE stream of
 * `POST /api/chats/:id/turns` carries exactly these objects (`event:` is the
 * `type`, `data:` the JSON object). The loop also forwards what a running tool
 * reports as `tool_call_progress`; progress is streamed, never stored.
 */

export const TextDeltaEvent = Type.Object({
  type: Type.Literal('text_delta'),
  delta: Type.String(),
});
export type TextDeltaEvent = Static<typeof TextDeltaEvent>;

export const ReasoningDeltaEvent = Type.Object({
  type: Type.Literal('reasoning_delta'),
  delta: Type.String(),
  /** Replay data for the reasoning so far (an Anthropic thinking signature). */
  providerMetadata: Type.Optional(ProviderMetadata),
});
export type ReasoningDeltaEvent = Static<typeof ReasoningDeltaEvent>;

export const ToolCallStartedEvent = Type.Object({
  type: Type.Literal('tool_call_started'),
  toolCallId: Type.String(),
  name: Type.String(),
});
export type ToolCallStartedEvent = Static<typeof ToolCallStartedEvent>;

export const ToolCallArgumentsDeltaEvent = Type.Object({
  type: Type.Literal('tool_call_arguments_delta'),
  toolCallId: Type.String(),
  delta: Type.String(),
});
export type ToolCallArgumentsDeltaEvent = Static<typeof ToolCallArgumentsDeltaEvent>;

export const ToolCallCompletedEvent = Type.Object({
  type: Type.Literal('tool_call_completed'),
  toolCallId: Type.String(),
  name: Type.String(),
  /** The complete arguments as a JSON text, exactly as the model produced them (may be invalid). */
  arguments: Type.String(),
  providerMetadata: Type.Optional(ProviderMetadata),
});
export type ToolCallCompletedEvent = Static<typeof ToolCallCompletedEvent>;

export const UsageEvent = Type.Object({
  type: Type.Literal('usage'),
  inputTokens: Type.Number(),
  outputTokens: Type.Number(),
  totalTokens: Type.Number(),
  reasoningTokens: Type.Optional(Type.Number()),
  cachedInputTokens: Type.Optional(Type.Number()),
});
export type UsageEvent = Static<typeof UsageEvent>;

export const FinishReason = Type.Union([
  Type.Literal('stop'),
  Type.Literal('tool_calls'),
  Type.Literal('length'),
  Type.Literal('content_filter'),
  Type.Literal('other'),
]);
export type FinishReason = Static<typeof FinishReason>;

/** One model call (one step of the loop) ended normally. */
export const TurnCompletedEvent = Type.Object({
  type: Type.Literal('turn_completed'),
  finishReason: FinishReason,
  /** The provider's own finish reason, for diagnostics. */
  rawFinishReason: Type.Optional(Type.String()),
});
export type TurnCompletedEvent = Static<typeof TurnCompletedEvent>;

/**
 * The codes a provider adapter reports for a failed model call (a subset of
 * the one `ErrorCode` vocabulary). Retryable ones may succeed if the same turn
 * is sent again later: `rate_limited` (429), `provider_unavailable` (5xx,
 * overloaded), `provider_timeout`, `connection_failed`, `stream_interrupted`
 * (the stream ended before the provider said it was done), `invalid_chunk` (a
 * chunk that is not JSON or not the documented shape). Not retryable:
 * `authentication_failed` (401/403), `invalid_request` (400/404/422),
 * `provider_error` (anything else), `aborted` (the turn was cancelled), and
 * `internal_error` (this server failed, e.g. could not store the turn).
 */
export const PROVIDER_ERROR_CODES = [
  'rate_limited',
  'provider_unavailable',
  'provider_timeout',
  'connection_failed',
  'stream_interrupted',
  'invalid_chunk',
  'authentication_failed',
  'invalid_request',
  'provider_error',
  'aborted',
  'internal_error',
] as const satisfies readonly ErrorCode[];
export const ProviderErrorCode = Type.Unsafe<(typeof PROVIDER_ERROR_CODES)[number]>(
  Type.Union(PROVIDER_ERROR_CODES.map((code) => Type.Literal(code))),
);
export type ProviderErrorCode = (typeof PROVIDER_ERROR_CODES)[number];

/**
 * A turn failed: the model call (a provider error) or this server (an
 * `internal_error`, whose message is generic and names the `requestId` to find
 * in the log). The same fields as an HTTP error reply, flattened.
 */
export const ErrorEvent = Type.Object({
  type: Type.Literal('error'),
  code: ErrorCode,
  message: Type.String(),
  retryable: Type.Boolean(),
  /** The provider's HTTP status, when there was one. */
  status: Type.Optional(Type.Number()),
  details: Type.Optional(ErrorDetails),
  requestId: Type.Optional(Type.String()),
});
export type ErrorEvent = Static<typeof ErrorEvent>;

/** What a provider adapter streams for one model call. */
export const ProviderStreamEvent = Type.Union([
  TextDeltaEvent,
  ReasoningDeltaEvent,
  ToolCallStartedEvent,
  ToolCallArgumentsDeltaEvent,
  ToolCallCompletedEvent,
  UsageEvent,
  TurnCompletedEvent,
  ErrorEvent,
]);
export type ProviderStreamEvent = Static<typeof ProviderStreamEvent>;

export const ToolResultEvent = Type.Object({
  type: Type.Literal('tool_result'),
  toolCallId: Type.String(),
  name: Type.String(),
  content: Type.String(),
  isError: Type.Boolean(),
  errorCode: Type.Optional(ErrorCode),
  durationMs: Type.Number(),
});
export type ToolResultEvent = Static<typeof ToolResultEvent>;

/**
 * What a running tool reports through `ToolContext.emit` (one image of several
 * is done, a download is half way): a type the tool chooses, an optional
 * message for people and optional JSON data.
 */
export const ToolProgress = Type.Object({
  type: Type.String({ minLength: 1 }),
  message: Type.Optional(Type.String()),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type ToolProgress = Static<typeof ToolProgress>;

/** A running call's progress; only between its `tool_call_completed` and its `tool_result`. */
export const ToolCallProgressEvent = Type.Object({
  type: Type.Literal('tool_call_progress'),
  toolCallId: Type.String(),
  name: Type.String(),
  /** The tool's report as it made it (its own `type` is not the event's). */
  progress: ToolProgress,
});
export type ToolCallProgressEvent = Static<typeof ToolCallProgressEvent>;

/**
 * A running call attached an image it stored (generate_image: one image done;
 * an MCP tool's image result): shown at once, and kept as an `image` part
 * after the call's `tool_call` part. Only between the call's
 * `tool_call_completed` and its `tool_result`.
 */
export const ImageGeneratedEvent = Type.Object({
  type: Type.Literal('image_generated'),
  toolCallId: Type.String(),
  name: Type.String(),
  /** Its position among the call's images (0-based). */
  index: Type.Integer({ minimum: 0 }),
  imageId: Type.String(),
  /** `/api/images/:id`. */
  url: Type.String(),
  mediaType: Type.String(),
});
export type ImageGeneratedEvent = Static<typeof ImageGeneratedEvent>;

/** One image of a running call could not be made (the call goes on with the others). */
export const ImageFailedEvent = Type.Object({
  type: Type.Literal('image_failed'),
  toolCallId: Type.String(),
  name: Type.String(),
  index: Type.Integer({ minimum: 0 }),
  code: ErrorCode,
  message: Type.String(),
});
export type ImageFailedEvent = Static<typeof ImageFailedEvent>;

/** The loop reached `maxIterations`; the model was asked for a final answer without tools. */
export const IterationLimitEvent = Type.Object({
  type: Type.Literal('iteration_limit'),
  maxIterations: Type.Number(),
  message: Type.String(),
});
export type IterationLimitEvent = Static<typeof IterationLimitEvent>;

export const TurnStatus = Type.Union([
  Type.Literal('completed'),
  Type.Literal('iteration_limit'),
  Type.Literal('cancelled'),
  Type.Literal('error'),
]);
export type TurnStatus = Static<typeof TurnStatus>;

/** The last event of every turn. */
export const DoneEvent = Type.Object({
  type: Type.Literal('done'),
  status: TurnStatus,
  /** Model calls made during the turn. */
  iterations: Type.Number(),
  /** The turn's summed usage (on every `done` the server streams; zero when no provider reported any). */
  usage: Type.Optional(TurnUsage),
});
export type DoneEvent = Static<typeof DoneEvent>;

/**
 * The first event of every turn's stream: the ids a client needs to match the
 * stream with `GET /api/chats/:id/messages` and to re-attach
 * (`GET /api/chats/:id/turns/:turnId/events`). `assistantMessageId` is the id
 * the turn's first assistant message is stored under (absent from the
 * messages when the model produced nothing).
 */
export const TurnStartedEvent = Type.Object({
  type: Type.Literal('turn_started'),
  turnId: Type.String(),
  chatId: Type.String(),
  userMessageId: Type.String(),
  assistantMessageId: Type.String(),
  /** The model the turn runs on (`provider:modelId`). */
  model: Type.String(),
});
export type TurnStartedEvent = Static<typeof TurnStartedEvent>;

/**
 * A tool source (an MCP server) left out of this turn: it did not connect and
 * list within the turn's budget, or it failed. The turn goes on with the other
 * tools; the next turn tries the server again.
 */
export const ToolSourceSkippedEvent = Type.Object({
  type: Type.Literal('tool_source_skipped'),
  /** `mcp:<server id>`. */
  sourceId: Type.String(),
  sourceName: Type.String(),
  /** source_timed_out, source_failed, or name_clash (one tool refused, the rest offered). */
  reason: Type.String(),
  message: Type.String(),
  toolName: Type.Optional(Type.String()),
});
export type ToolSourceSkippedEvent = Static<typeof ToolSourceSkippedEvent>;

export const TurnStreamEvent = Type.Union([
  TurnStartedEvent,
  ToolSourceSkippedEvent,
  TextDeltaEvent,
  ReasoningDeltaEvent,
  ToolCallStartedEvent,
  ToolCallArgumentsDeltaEvent,
  ToolCallCompletedEvent,
  UsageEvent,
  TurnCompletedEvent,
  ErrorEvent,
  ToolCallProgressEvent,
  ImageGeneratedEvent,
  ImageFailedEvent,
  ToolResultEvent,
  IterationLimitEvent,
  DoneEvent,
]);
export type TurnStreamEvent = Static<typeof TurnStreamEvent>;
export type TurnStreamEventType = TurnStreamEvent['type'];
