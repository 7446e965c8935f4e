/**
 * What a client shows of a chat, folded from the stored messages and the
 * events of its latest turn by one function, so a turn watched live, a turn
 * re-attached after a reload and a turn read back after it ended look the same
 * (docs/web-ui.md#one-fold-for-live-and-stored).
 *
 * The stored messages of a turn are one user message, then per model call an
 * assistant message (text, reasoning, `tool_call` parts, the images its calls
 * attached) and a `tool` message with the results. The view merges a turn's
 * assistant and tool messages into one assistant message whose tool calls are
 * cards carrying their result and images. Events are folded by the same rules
 * the server stores by: a delta extends the last part of its kind within one
 * model call; each model call starts new parts.
 *
 * What is streamed and never stored is shown only while it matters: a call's
 * progress while it runs, per-image failures (the call's result names them
 * too), and the turn's ending (`error`, `iteration_limit`) from its events,
 * which the server keeps for the chat's latest turn.
 */

import type {
  ErrorEvent,
  ImageFailedEvent,
  ToolProgress,
  TurnStatus,
  TurnStreamEvent,
} from '../contracts/chat-events';
import type { ImagePart, MessagePart, ToolCallStatus, TurnUsage } from '../contracts/chat-parts';
import type { ChatMessage } from '../contracts/chats';

export interface ChatViewImage {
  url: string;
  imageId?: string;
  mediaType?: string;
}

export interface ToolCallCard {
  toolCallId: string;
  name: string;
  /** The arguments as the model wrote them (JSON text, possibly invalid or still streaming). */
  arguments: string;
  /** True while the model is still writing the arguments. */
  streamingArguments: boolean;
  status: ToolCallStatus;
  errorCode?: string;
  durationMs?: number;
  result?: { content: string; isError: boolean };
  /** The latest progress report, only while the call runs. */
  progress?: ToolProgress;
  images: ChatViewImage[];
  imageFailures: Pick<ImageFailedEvent, 'index' | 'code' | 'message'>[];
}

export type ChatViewPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; call: ToolCallCard }
  | ({ type: 'image' } & ChatViewImage);

export interface ChatViewMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: ChatViewPart[];
}

export interface ChatViewTurn {
  turnId: string;
  model: string;
  userMessageId: string;
  assistantMessageId: string;
  /** `running` until `done` arrives. */
  state: 'running' | 'done';
  status?: TurnStatus;
  error?: Pick<ErrorEvent, 'code' | 'message' | 'retryable'>;
  iterationLimit?: { maxIterations: number; message: string };
  /** MCP servers (tool sources) this turn went on without, and why. */
  skippedSources?: { sourceId: string; sourceName: string; reason: string; message: string }[];
  usage?: TurnUsage;
}

export interface ChatView {
  messages: ChatViewMessage[];
  /** The latest turn, when its events are known. */
  turn?: ChatViewTurn;
  /** Internal: the next delta starts a new part (a model call ended). */
  stepEnded?: boolean;
}

export interface LiveTurn {
  events: readonly TurnStreamEvent[];
  /** The user's text, for a turn this client started before its message was read back. */
  userText?: string;
}

function statusOf(isError: boolean, errorCode: string | undefined): ToolCallStatus {
  if (!isError) return 'succeeded';
  return errorCode === 'aborted' ? 'aborted' : 'failed';
}

function imageOf(part: ImagePart): ChatViewImage {
  return {
    url: part.url,
    ...(part.imageId ? { imageId: part.imageId } : {}),
    ...(part.mediaType ? { mediaType: part.mediaType } : {}),
  };
}

/** Replaces the card of `toolCallId` in `message` (a new message object), or returns it unchanged. */
function updateCard(
  message: ChatViewMessage,
  toolCallId: string,
  change: (card: ToolCallCard) => ToolCallCard,
): ChatViewMessage {
  const at = message.parts.findIndex(
    (part) => part.type === 'tool_call' && part.call.toolCallId === toolCallId,
  );
  if (at === -1) return message;
  const parts = message.parts.slice();
  const part = parts[at] as Extract<ChatViewPart, { type: 'tool_call' }>;
  parts[at] = { type: 'tool_call', call: change(part.call) };
  return { ...message, parts };
}

function storedPartsToView(
  message: ChatViewMessage,
  parts: readonly MessagePart[],
): ChatViewMessage {
  let next = message;
  for (const part of parts) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        next = { ...next, parts: [...next.parts, { type: part.type, text: part.text }] };
        break;
      case 'tool_call':
        next = {
          ...next,
          parts: [
            ...next.parts,
            {
              type: 'tool_call',
              call: {
                toolCallId: part.toolCallId,
                name: part.name,
                arguments: part.arguments,
                streamingArguments: false,
                status: part.status,
                ...(part.errorCode ? { errorCode: part.errorCode } : {}),
                ...(part.status === 'running' ? {} : { durationMs: part.durationMs }),
                images: [],
                imageFailures: [],
              },
            },
          ],
        };
        break;
      case 'tool_result':
        next = updateCard(next, part.toolCallId, (card) => ({
          ...card,
          result: { content: part.content, isError: part.isError },
        }));
        break;
      case 'image':
        if (part.toolCallId) {
          const toolCallId = part.toolCallId;
          const image = imageOf(part);
          const updated = updateCard(next, toolCallId, (card) => ({
            ...card,
            images: [...card.images, image],
          }));
          if (updated !== next) {
            next = updated;
            break;
          }
        }
        next = { ...next, parts: [...next.parts, { type: 'image', ...imageOf(part) }] };
        break;
    }
  }
  return next;
}

/** The stored messages as the view shows them (a turn's assistant and tool messages merged). */
export function storedMessagesToView(messages: readonly ChatMessage[]): ChatViewMessage[] {
  const view: ChatViewMessage[] = [];
  for (const message of messages) {
    const last = view.at(-1);
    if (message.role === 'user') {
      view.push(storedPartsToView({ id: message.id, role: 'user', parts: [] }, message.parts));
    } else if (last?.role === 'assistant') {
      view[view.length - 1] = storedPartsToView(last, message.parts);
    } else {
      view.push(storedPartsToView({ id: message.id, role: 'assistant', parts: [] }, message.parts));
    }
  }
  return view;
}

/** Applies `change` to the view's last message when it is the turn's assistant message. */
function withAssistant(view: ChatView, change: (message: ChatViewMessage) => ChatViewMessage) {
  const last = view.messages.at(-1);
  if (last?.role !== 'assistant') return view;
  const messages = view.messages.slice();
  messages[messages.length - 1] = change(last);
  return { ...view, messages };
}

function appendDelta(view: ChatView, type: 'text' | 'reasoning', delta: string): ChatView {
  const startNew = view.stepEnded;
  const next = withAssistant(view, (message) => {
    const parts = message.parts.slice();
    const tail = parts.at(-1);
    if (!startNew && tail?.type === type)
      parts[parts.length - 1] = { type, text: tail.text + delta };
    else parts.push({ type, text: delta });
    return { ...message, parts };
  });
  return { ...next, stepEnded: false };
}

function newCard(toolCallId: string, name: string): ChatViewPart {
  return {
    type: 'tool_call',
    call: {
      toolCallId,
      name,
      arguments: '',
      streamingArguments: true,
      status: 'running',
      images: [],
      imageFailures: [],
    },
  };
}

function hasCard(view: ChatView, toolCallId: string): boolean {
  return (
    view.messages
      .at(-1)
      ?.parts.some((part) => part.type === 'tool_call' && part.call.toolCallId === toolCallId) ??
    false
  );
}

/** One event of the latest turn applied to the view (returns a new view; the old one is untouched). */
export function applyTurnEvent(view: ChatView, event: TurnStreamEvent): ChatView {
  const { turn } = view;
  switch (event.type) {
    case 'turn_started':
      return {
        messages: [
          ...view.messages,
          { id: event.assistantMessageId, role: 'assistant', parts: [] },
        ],
        turn: {
          turnId: event.turnId,
          model: event.model,
          userMessageId: event.userMessageId,
          assistantMessageId: event.assistantMessageId,
          state: 'running',
        },
      };
    case 'text_delta':
      return appendDelta(view, 'text', event.delta);
    case 'reasoning_delta':
      return appendDelta(view, 'reasoning', event.delta);
    case 'tool_call_started':
      return {
        ...withAssistant(view, (message) => ({
          ...message,
          parts: [...message.parts, newCard(event.toolCallId, event.name)],
        })),
        stepEnded: false,
      };
    case 'tool_call_arguments_delta':
      return withAssistant(view, (message) =>
        updateCard(message, event.toolCallId, (card) => ({
          ...card,
          arguments: card.arguments + event.delta,
        })),
      );
    case 'tool_call_completed': {
      const started = hasCard(view, event.toolCallId)
        ? view
        : withAssistant(view, (message) => ({
            ...message,
            parts: [...message.parts, newCard(event.toolCallId, event.name)],
          }));
      return withAssistant(started, (message) =>
        updateCard(message, event.toolCallId, (card) => ({
          ...card,
          name: event.name,
          arguments: event.arguments,
          streamingArguments: false,
        })),
      );
    }
    case 'tool_call_progress':
      return withAssistant(view, (message) =>
        updateCard(message, event.toolCallId, (card) =>
          card.status === 'running' ? { ...card, progress: event.progress } : card,
        ),
      );
    case 'image_generated':
      return withAssistant(view, (message) =>
        updateCard(message, event.toolCallId, (card) => ({
          ...card,
          images: [
            ...card.images,
            { url: event.url, imageId: event.imageId, mediaType: event.mediaType },
          ],
        })),
      );
    case 'image_failed':
      return withAssistant(view, (message) =>
        updateCard(message, event.toolCallId, (card) => ({
          ...card,
          imageFailures: [
            ...card.imageFailures,
            { index: event.index, code: event.code, message: event.message },
          ],
        })),
      );
    case 'tool_result':
      return withAssistant(view, (message) =>
        updateCard(message, event.toolCallId, (card) => {
          const { progress: _progress, errorCode: _errorCode, ...rest } = card;
          return {
            ...rest,
            streamingArguments: false,
            status: statusOf(event.isError, event.errorCode),
            ...(event.isError && event.errorCode ? { errorCode: event.errorCode } : {}),
            durationMs: event.durationMs,
            result: { content: event.content, isError: event.isError },
          };
        }),
      );
    case 'turn_completed':
      return { ...view, stepEnded: true };
    case 'error':
      if (!turn) return view;
      return {
        ...view,
        stepEnded: true,
        turn: {
          ...turn,
          error: { code: event.code, message: event.message, retryable: event.retryable },
        },
      };
    case 'tool_source_skipped':
      if (!turn) return view;
      return {
        ...view,
        turn: {
          ...turn,
          skippedSources: [
            ...(turn.skippedSources ?? []),
            {
              sourceId: event.sourceId,
              sourceName: event.sourceName,
              reason: event.reason,
              message: event.message,
            },
          ],
        },
      };
    case 'iteration_limit':
      if (!turn) return view;
      return {
        ...view,
        turn: {
          ...turn,
          iterationLimit: { maxIterations: event.maxIterations, message: event.message },
        },
      };
    case 'done':
      if (!turn) return view;
      return {
        ...view,
        turn: {
          ...turn,
          state: 'done',
          status: event.status,
          ...(event.usage ? { usage: event.usage } : {}),
        },
      };
    case 'usage':
      return view;
  }
}

/**
 * The chat as a client shows it: the stored messages, and — when the events
 * of the latest turn are given — that turn folded from its events instead of
 * from what is stored of it (the stored user message is kept; what the turn
 * stored after it is what the events describe).
 */
export function foldChat(stored: readonly ChatMessage[], live?: LiveTurn): ChatView {
  const started = live?.events.find((event) => event.type === 'turn_started');
  if (!live || !started) return { messages: storedMessagesToView(stored) };
  const at = stored.findIndex((message) => message.id === started.userMessageId);
  const before = at === -1 ? stored : stored.slice(0, at + 1);
  const messages = storedMessagesToView(before);
  if (at === -1)
    messages.push({
      id: started.userMessageId,
      role: 'user',
      parts: [{ type: 'text', text: live.userText ?? '' }],
    });
  let view: ChatView = { messages };
  for (const event of live.events) view = applyTurnEvent(view, event);
  return view;
}
