/**
 * Chat turns as the server owns them (docs/chat-turns.md#the-turn-lifecycle).
 * `start` checks the request (chat, model, limits, one turn per chat) — so a
 * refusal is an HTTP status, before anything is stored or streamed — claims
 * the chat, records the turn and runs it detached from the request: a client
 * that goes away only stops following. `events` replays a turn's events after
 * a given one and follows it live, from any instance; `cancel` is the only way
 * to stop a turn early (besides its own limits and a shutdown).
 */
import type { CreateTurnBody } from '@mango/shared';
import { createRowId } from '../../db/row-ids';
import { ApiError } from '../../errors';
import type { Logger } from '../../logger';
import type { ModelCatalog } from '../providers/model-catalog';
import type { ProviderRegistry } from '../providers/provider-registry';
import type { ChatRepository } from './chat-repository';
import { chatNotFound } from './chat-service';
import type { ChatToolsDeps } from './chat-tools';
import { resolveMaxIterations } from './run-chat-turn';
import { runStartedTurn } from './run-started-turn';
import type { RunningTurns } from './running-turns';
import type { TurnEventLog } from './turn-events/turn-event-log';
import type { TurnEventRecord, TurnEventStore, TurnRecord } from './turn-events/turn-event-store';
import { createMessageId } from './write-message-changes';

/** How long a turn may run in all, whatever its steps and tools (30 minutes). */
export const DEFAULT_TURN_TIMEOUT_MS = 30 * 60_000;

export interface ChatTurnServiceDeps {
  chats: ChatRepository;
  providers: ProviderRegistry;
  /** Refuses a model that is not offered, before anything is stored. */
  models: ModelCatalog;
  running: RunningTurns;
  /** Where turns and their events are kept for replay. */
  turnStore: TurnEventStore;
  /** The live events of turns, for every follower. */
  turnEvents: TurnEventLog;
  /** The tool sources and what a call needs (the ledger, the protected paths). */
  tools: ChatToolsDeps;
  /** The whole turn's time limit (default 30 minutes; `MANGO_TURN_TIMEOUT_SECONDS`). */
  turnTimeoutMs?: number;
  /** Provider silence that ends a model call (default 5 minutes; `MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS`). */
  providerIdleTimeoutMs?: number;
  logger?: Logger;
}

export interface StartTurnOptions {
  /** The request that starts the turn, named in the log and in an unexpected failure's event. */
  requestId?: string;
}

/** `current`: the chat's running turn, else its latest one. */
export type TurnReference = 'current' | (string & {});

export interface ChatTurnService {
  /** Starts a turn; it runs until it ends, whoever follows it. */
  start(
    userId: string,
    chatId: string,
    body: CreateTurnBody,
    options?: StartTurnOptions,
  ): Promise<TurnRecord>;
  /**
   * The turn (checked to be the user's chat's) and its events after
   * `lastEventId` (all of them without one), then its live ones until `done`.
   */
  events(
    userId: string,
    chatId: string,
    turn: TurnReference,
    lastEventId: string | undefined,
    signal: AbortSignal,
  ): Promise<{ turn: TurnRecord; events: AsyncGenerator<TurnEventRecord> }>;
  /** Cancels the chat's running turn, on whichever instance runs it; false when none is running. */
  cancel(userId: string, chatId: string): Promise<boolean>;
  /** Cancels the turns running on this instance and waits until they are stored (at shutdown). */
  shutdown(): Promise<number>;
}

/** The SSE id of a turn's event: the turn's id and the event's place in it. */
export function turnEventId(turnId: string, seq: number): string {
  return `${turnId}:${seq}`;
}

/** The sequence number to resume after, for a `Last-Event-ID` given to `turn`'s stream. */
export function resumeAfter(turn: TurnRecord, lastEventId: string | undefined): number {
  if (lastEventId === undefined || lastEventId.trim() === '') return 0;
  const match = /^(.+):(\d{1,15})$/.exec(lastEventId.trim());
  if (!match)
    throw new ApiError(
      'invalid_request',
      `Last-Event-ID must be the id of an event of this stream ("<turnId>:<number>"); got "${lastEventId}".`,
      { details: { field: 'Last-Event-ID' } },
    );
  // An id of another turn (the chat has moved on): this turn is replayed from its start.
  return match[1] === turn.id ? Number(match[2]) : 0;
}

export function createChatTurnService(deps: ChatTurnServiceDeps): ChatTurnService {
  const { chats, providers, running, turnStore, turnEvents } = deps;
  const turnTimeoutMs = deps.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
  /** Turns running on this instance, until stored. */
  const tasks = new Set<Promise<unknown>>();

  return {
    async start(userId, chatId, body, options = {}) {
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
      const turnId = createRowId('turn');
      const claim = await running.begin(chatId, turnId);
      if (!claim)
        throw new ApiError(
          'conflict',
          'A turn is already running in this chat. Follow it with GET /api/chats/:id/turns/current/events, or cancel it with POST /api/chats/:id/turns/cancel.',
        );
      let turn: TurnRecord;
      try {
        turn = await turnStore.create({
          id: turnId,
          chatId,
          userMessageId: createMessageId(),
          assistantMessageId: createMessageId(),
          model: modelName,
        });
      } catch (error) {
        await claim.end();
        throw error;
      }
      const recorder = turnEvents.open(turn);
      recorder.append({
        type: 'turn_started',
        turnId,
        chatId,
        userMessageId: turn.userMessageId,
        assistantMessageId: turn.assistantMessageId,
        model: modelName,
      });
      const task = runStartedTurn({
        chats,
        tools: deps.tools,
        ...(deps.logger ? { logger: deps.logger } : {}),
        userId,
        chat,
        turn,
        body,
        resolved,
        maxIterations,
        claim,
        recorder,
        turnTimeoutMs,
        ...(deps.providerIdleTimeoutMs
          ? { providerIdleTimeoutMs: deps.providerIdleTimeoutMs }
          : {}),
        ...(options.requestId ? { requestId: options.requestId } : {}),
      });
      tasks.add(task);
      void task.finally(() => tasks.delete(task));
      return turn;
    },

    async events(userId, chatId, reference, lastEventId, signal) {
      if (!(await chats.get(userId, chatId))) throw chatNotFound(chatId);
      const turn =
        reference === 'current' ? await turnStore.latest(chatId) : await turnStore.get(reference);
      if (!turn || turn.chatId !== chatId)
        throw new ApiError(
          'not_found',
          reference === 'current'
            ? `Chat "${chatId}" has had no turn yet. Start one with POST /api/chats/:id/turns.`
            : `Chat "${chatId}" has no turn "${reference}" to follow: only its latest turn's events are kept (GET /api/chats/:id/turns/current/events); what earlier turns produced is in GET /api/chats/:id/messages.`,
        );
      const after = resumeAfter(turn, lastEventId);
      return { turn, events: turnEvents.follow(turn, after, signal) };
    },

    async cancel(userId, chatId) {
      if (!(await chats.get(userId, chatId))) throw chatNotFound(chatId);
      return running.cancel(chatId);
    },

    async shutdown() {
      const cancelled = running.cancelAll();
      await Promise.allSettled([...tasks]);
      return cancelled;
    },
  };
}
