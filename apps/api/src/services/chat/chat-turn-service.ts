/**
 * Runs a chat's turn end to end: checks the request (chat, model, limits, one
 * turn per chat), answers the calls a crashed earlier turn left open, stores
 * the user message, replays the stored history to the chosen provider through
 * the turn loop with the user's enabled tools, and stores what the turn
 * produces step by step as it goes — also when it fails or is cancelled.
 * Checks happen in `prepare`, before any event is streamed, so they answer
 * with an HTTP status; `run` never throws: a failure becomes an `error` event.
 */
import type {
  ConversationMessage,
  CreateTurnBody,
  ErrorEvent,
  TurnStreamEvent,
} from '@mango/shared';
import { ApiError, internalErrorBody } from '../../errors';
import type { Logger } from '../../logger';
import type { ModelCatalog } from '../providers/model-catalog';
import type { ProviderRegistry } from '../providers/provider-registry';
import type { ChatRecord, ChatRepository, StoredMessage } from './chat-repository';
import { chatNotFound, DEFAULT_CHAT_TITLE } from './chat-service';
import { type ChatToolsDeps, listChatTools } from './chat-tools';
import { type ChatTurnResult, resolveMaxIterations, runChatTurn } from './run-chat-turn';
import type { RunningTurns } from './running-turns';
import { buildSystemPrompt } from './system-prompt';
import { createTurnMessageWriter } from './turn-message-writer';
import { createTurnSummary } from './turn-summary';
import { answerUnansweredToolCalls } from './unanswered-tool-calls';

export interface ChatTurnServiceDeps {
  chats: ChatRepository;
  providers: ProviderRegistry;
  /** Refuses a model that is not offered, before anything is stored. */
  models: ModelCatalog;
  running: RunningTurns;
  /** The tool sources and what a call needs (the ledger, the protected paths). */
  tools: ChatToolsDeps;
  logger?: Logger;
}

export interface PreparedTurn {
  chat: ChatRecord;
  /** Runs the turn; resolves when it has ended and been stored. */
  run(onEvent: (event: TurnStreamEvent) => void): Promise<ChatTurnResult>;
  /** Cancels the turn (the client went away). */
  cancel(): void;
}

export interface PrepareTurnOptions {
  /** The request that starts the turn, named in the log and in an unexpected failure's event. */
  requestId?: string;
}

export interface ChatTurnService {
  prepare(
    userId: string,
    chatId: string,
    body: CreateTurnBody,
    options?: PrepareTurnOptions,
  ): Promise<PreparedTurn>;
  /** Cancels the chat's running turn, on whichever instance runs it; false when none is running. */
  cancel(userId: string, chatId: string): Promise<boolean>;
}

/** Stored messages as the loop and the adapters see them. */
export function toConversation(messages: readonly StoredMessage[]): ConversationMessage[] {
  return messages.flatMap((message): ConversationMessage[] => {
    if (message.role === 'user')
      return [
        {
          role: 'user',
          parts: message.parts.filter((part) => part.type === 'text' || part.type === 'image'),
        },
      ];
    if (message.role === 'tool')
      return [{ role: 'tool', parts: message.parts.filter((part) => part.type === 'tool_result') }];
    return [
      { role: 'assistant', parts: message.parts.filter((part) => part.type !== 'tool_result') },
    ];
  });
}

function titleFrom(content: string): string {
  const line = content.trim().split('\n')[0]?.trim() ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line || DEFAULT_CHAT_TITLE;
}

export function createChatTurnService(deps: ChatTurnServiceDeps): ChatTurnService {
  const { chats, providers, running } = deps;

  return {
    async prepare(userId, chatId, body, options = {}) {
      const chat = await chats.get(userId, chatId);
      if (!chat) throw chatNotFound(chatId);
      const modelName = body.model ?? chat.model;
      if (!modelName)
        throw new ApiError(
          'validation_failed',
          `Choose a model for this turn ("model": "provider:modelId") or set one on the chat. Offered providers: ${providers.offered().join(', ') || 'none configured'}.`,
          { details: { field: 'model' } },
        );
      // Both throw 422 `validation_failed` errors naming the field.
      const resolved = providers.resolveModel(modelName);
      await deps.models.assertOffered(modelName, 'chat', options);
      const maxIterations = resolveMaxIterations(body.maxIterations);
      const claim = await running.begin(chatId);
      if (!claim)
        throw new ApiError(
          'conflict',
          'A turn is already running in this chat. Wait for it to finish, or cancel it with POST /api/chats/:id/turns/cancel.',
        );

      const run = async (sendEvent: (event: TurnStreamEvent) => void): Promise<ChatTurnResult> => {
        const startedAt = performance.now();
        const summary = createTurnSummary({
          ...(deps.logger ? { logger: deps.logger } : {}),
          provider: resolved.providerId,
          model: resolved.modelId,
          chatId,
          ...(options.requestId ? { requestId: options.requestId } : {}),
        });
        const onEvent = (event: TurnStreamEvent) => {
          summary.observe(event);
          sendEvent(event.type === 'done' ? { ...event, usage: summary.usage() } : event);
        };
        let result: ChatTurnResult = { status: 'error', iterations: 0, messages: [] };
        // `done` is held back until the turn is stored, so a client that reloads on it sees the turn.
        let done: TurnStreamEvent | undefined;
        let stored = false;
        const forward = (event: TurnStreamEvent) => {
          if (event.type === 'done') done = event;
          else onEvent(event);
        };
        const writer = createTurnMessageWriter(chats, chatId);
        try {
          // Safe only now: holding the claim, no turn anywhere can still answer these calls.
          const { answered, messages: earlier } = await answerUnansweredToolCalls(chats, chatId);
          if (answered.length > 0)
            deps.logger?.warn('answered the tool calls of an interrupted turn as aborted', {
              chatId,
              toolCallIds: answered,
            });
          await chats.appendMessages(chatId, [
            { role: 'user', parts: [{ type: 'text', text: body.content }] },
          ]);
          const { listing, toolset } = await listChatTools(deps.tools, userId, chat, claim.signal);
          if (listing.problems.length > 0)
            deps.logger?.warn('tool sources left out of a turn', {
              chatId,
              problems: listing.problems,
            });
          const system = buildSystemPrompt({
            mode: chat.mode,
            workingDirectory: chat.workingDirectory,
            restrictToWorkingDirectory: chat.restrictToWorkingDirectory,
          });
          result = await runChatTurn({
            provider: resolved.provider,
            model: resolved.modelId,
            ...(system ? { system } : {}),
            history: [
              ...toConversation(earlier),
              { role: 'user', parts: [{ type: 'text', text: body.content }] },
            ],
            toolset,
            maxIterations,
            signal: claim.signal,
            onEvent: forward,
            checkpoint: writer.save,
          });
          await writer.save(result.messages);
          stored = true;
          const changes: Parameters<ChatRepository['update']>[2] = {};
          // A turn's model becomes the chat's only once the provider has answered with it: a
          // model the provider refuses (a typo, a retired model) must not break every later turn.
          const providerAnswered = result.status !== 'error' || result.iterations > 1;
          if (body.model && body.model !== chat.model && providerAnswered)
            changes.model = body.model;
          if (chat.title === DEFAULT_CHAT_TITLE && earlier.length === 0)
            changes.title = titleFrom(body.content);
          if (Object.keys(changes).length > 0) await chats.update(userId, chatId, changes);
          if (done) onEvent(done);
        } catch (error) {
          deps.logger?.error('chat turn failed', { chatId, requestId: options.requestId, error });
          // What the loop produced since its last checkpoint is stored if it can be; calls left
          // open are answered by the next turn. The client learns the turn failed, and where
          // to look: the stream says what HTTP would (a generic message and the request id).
          if (!stored) await writer.flush().catch(() => {});
          const event: ErrorEvent = { type: 'error', ...internalErrorBody(options.requestId) };
          onEvent(event);
          onEvent({ type: 'done', status: 'error', iterations: result.iterations });
          result = { ...result, status: 'error', error: event };
        } finally {
          await claim.end();
          deps.logger?.info('chat turn', {
            chatId,
            userId,
            model: modelName,
            status: result.status,
            iterations: result.iterations,
            durationMs: Math.round(performance.now() - startedAt),
            ...summary.logFields(),
            ...(options.requestId ? { requestId: options.requestId } : {}),
          });
        }
        return result;
      };
      return { chat, run, cancel: () => claim.abort() };
    },

    async cancel(userId, chatId) {
      if (!(await chats.get(userId, chatId))) throw chatNotFound(chatId);
      return running.cancel(chatId);
    },
  };
}
