/**
 * The life of one started turn, detached from any connection
 * (docs/chat-turns.md#the-turn-lifecycle): answers the calls an interrupted
 * earlier turn left open, stores the user message, runs the loop with the
 * user's tools, stores what the loop produces step by step, and records every
 * event for the turn's followers — `done` last, once everything is stored.
 * Never throws: a failure becomes an `error` event and `done`.
 */
import type { CreateTurnBody, DoneEvent, ErrorEvent, TurnStreamEvent } from '@mango/shared';
import { internalErrorBody } from '../../errors';
import type { Logger } from '../../logger';
import type { ResolvedModel } from '../providers/provider-registry';
import type { ChatRecord, ChatRepository } from './chat-repository';
import { DEFAULT_CHAT_TITLE } from './chat-service';
import { type ChatToolsDeps, listChatTools } from './chat-tools';
import { toConversation } from './conversation';
import { type ChatTurnResult, runChatTurn } from './run-chat-turn';
import type { RunningTurn } from './running-turns';
import { buildSystemPrompt } from './system-prompt';
import type { TurnRecorder } from './turn-events/turn-event-log';
import type { TurnRecord } from './turn-events/turn-event-store';
import { createTurnMessageWriter } from './turn-message-writer';
import { createTurnSummary } from './turn-summary';
import { answerUnansweredToolCalls } from './unanswered-tool-calls';

export interface StartedTurnContext {
  chats: ChatRepository;
  tools: ChatToolsDeps;
  logger?: Logger;
  userId: string;
  chat: ChatRecord;
  turn: TurnRecord;
  body: CreateTurnBody;
  resolved: ResolvedModel;
  maxIterations: number;
  claim: RunningTurn;
  recorder: TurnRecorder;
  /** The whole turn's time limit. */
  turnTimeoutMs: number;
  providerIdleTimeoutMs?: number;
  requestId?: string;
}

function titleFrom(content: string): string {
  const line = content.trim().split('\n')[0]?.trim() ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line || DEFAULT_CHAT_TITLE;
}

export async function runStartedTurn(context: StartedTurnContext): Promise<ChatTurnResult> {
  const { chats, chat, turn, body, claim, recorder, logger } = context;
  const chatId = chat.id;
  const startedAt = performance.now();
  const summary = createTurnSummary({
    ...(logger ? { logger } : {}),
    provider: context.resolved.providerId,
    model: context.resolved.modelId,
    chatId,
    turnId: turn.id,
    ...(context.requestId ? { requestId: context.requestId } : {}),
  });
  const record = (event: TurnStreamEvent) => {
    summary.observe(event);
    recorder.append(event);
  };
  let result: ChatTurnResult = { status: 'error', iterations: 0, messages: [] };
  // `done` is held back until the turn is stored, so a client that reloads on it sees the turn.
  let done: DoneEvent | undefined;
  const forward = (event: TurnStreamEvent) => {
    if (event.type === 'done') done = event;
    else record(event);
  };
  let outOfTime = false;
  const budget = setTimeout(() => {
    outOfTime = true;
    claim.abort();
  }, context.turnTimeoutMs);
  let stored = false;
  const writer = createTurnMessageWriter(chats, chatId, {
    firstAssistantMessageId: turn.assistantMessageId,
  });
  try {
    // Safe only now: holding the claim, no turn anywhere can still answer these calls.
    const { answered, messages: earlier } = await answerUnansweredToolCalls(chats, chatId);
    if (answered.length > 0)
      logger?.warn('answered the tool calls of an interrupted turn as aborted', {
        chatId,
        toolCallIds: answered,
      });
    await chats.appendMessages(chatId, [
      { id: turn.userMessageId, role: 'user', parts: [{ type: 'text', text: body.content }] },
    ]);
    const { listing, toolset } = await listChatTools(
      context.tools,
      context.userId,
      chat,
      claim.signal,
    );
    if (listing.problems.length > 0)
      logger?.warn('tool sources left out of a turn', { chatId, problems: listing.problems });
    for (const problem of listing.problems)
      record({
        type: 'tool_source_skipped',
        sourceId: problem.sourceId,
        sourceName: problem.sourceName,
        reason: problem.kind,
        message: problem.message,
        ...(problem.toolName ? { toolName: problem.toolName } : {}),
      });
    const system = buildSystemPrompt({
      mode: chat.mode,
      workingDirectory: chat.workingDirectory,
      restrictToWorkingDirectory: chat.restrictToWorkingDirectory,
    });
    result = await runChatTurn({
      provider: context.resolved.provider,
      model: context.resolved.modelId,
      ...(system ? { system } : {}),
      history: [
        ...toConversation(earlier),
        { role: 'user', parts: [{ type: 'text', text: body.content }] },
      ],
      toolset,
      maxIterations: context.maxIterations,
      signal: claim.signal,
      onEvent: forward,
      checkpoint: writer.checkpoint,
      ...(context.providerIdleTimeoutMs
        ? { providerIdleTimeoutMs: context.providerIdleTimeoutMs }
        : {}),
    });
    await writer.save(result.messages);
    stored = true;
    const changes: Parameters<ChatRepository['update']>[2] = {};
    // A turn's model becomes the chat's only once the provider has answered with it: a
    // model the provider refuses (a typo, a retired model) must not break every later turn.
    const providerAnswered = result.status !== 'error' || result.iterations > 1;
    if (body.model && body.model !== chat.model && providerAnswered) changes.model = body.model;
    if (chat.title === DEFAULT_CHAT_TITLE && earlier.length === 0)
      changes.title = titleFrom(body.content);
    if (Object.keys(changes).length > 0) await chats.update(context.userId, chatId, changes);
    if (outOfTime && result.status === 'cancelled') {
      const seconds = Math.round(context.turnTimeoutMs / 1000);
      const error: ErrorEvent = {
        type: 'error',
        code: 'timeout',
        message: `The turn ran for its whole time limit (${seconds} s) and was stopped; what it produced is stored. Send a message to continue.`,
        retryable: true,
        details: { turnTimeoutMs: context.turnTimeoutMs },
      };
      record(error);
      result = { ...result, status: 'error', error };
      done = { type: 'done', status: 'error', iterations: result.iterations };
    }
  } catch (error) {
    logger?.error('chat turn failed', {
      chatId,
      turnId: turn.id,
      requestId: context.requestId,
      error,
    });
    // What the loop produced since its last checkpoint is stored if it can be; calls left
    // open are answered by the next turn. The client learns the turn failed, and where
    // to look: the stream says what HTTP would (a generic message and the request id).
    if (!stored) await writer.flush().catch(() => {});
    const event: ErrorEvent = { type: 'error', ...internalErrorBody(context.requestId) };
    record(event);
    result = { ...result, status: 'error', error: event };
    done = { type: 'done', status: 'error', iterations: result.iterations };
  } finally {
    clearTimeout(budget);
    logger?.info('chat turn', {
      chatId,
      userId: context.userId,
      model: turn.model,
      status: result.status,
      iterations: result.iterations,
      durationMs: Math.round(performance.now() - startedAt),
      ...summary.logFields(),
      ...(context.requestId ? { requestId: context.requestId } : {}),
    });
    const final = done ?? { type: 'done', status: result.status, iterations: result.iterations };
    await recorder.end({ ...final, usage: summary.usage() }, () => claim.end());
  }
  return result;
}
