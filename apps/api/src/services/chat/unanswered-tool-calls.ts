/**
 * Answers the tool calls a crashed turn left without results. A turn stores
 * each step's model message as soon as it is complete, before its tools run,
 * so a server that dies while tools run leaves calls stored as `running` with
 * no `tool_result`. The next turn in the chat repairs that once it holds the
 * chat's claim (no turn on any instance can still be answering those calls):
 * each such call becomes `aborted` and gets an `aborted` error result in the
 * tool message that follows its model message (a new one when the model
 * message is the chat's last). History replayed to a provider is also
 * normalised in memory (`normalizeHistory`), so even a call this cannot place
 * a result for is answered in every request.
 */
import type { MessagePart, ToolCallPart, ToolResultPart } from '@mango/shared';
import { ToolAbortedError } from '../tools/errors';
import type { ChatRepository, MessageChanges, StoredMessage } from './chat-repository';
import { errorResultContent } from './tool-call-results';

export const INTERRUPTED_CALL_MESSAGE =
  'The server stopped while this call was in progress (the turn was interrupted), so its result was lost. It may or may not have taken effect: check before running it again.';

function abortedResult(call: ToolCallPart): ToolResultPart {
  return {
    type: 'tool_result',
    toolCallId: call.toolCallId,
    name: call.name,
    content: errorResultContent(new ToolAbortedError(INTERRUPTED_CALL_MESSAGE)),
    isError: true,
  };
}

export interface ToolCallRepair extends Required<MessageChanges> {
  /** Ids of the calls answered. */
  answered: string[];
}

/** The changes that answer every unanswered call of `messages` (a chat's messages, in order). */
export function planUnansweredToolCallRepair(messages: readonly StoredMessage[]): ToolCallRepair {
  const changes: ToolCallRepair = { update: [], append: [], answered: [] };
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const calls = message.parts.filter((part): part is ToolCallPart => part.type === 'tool_call');
    if (calls.length === 0) return;
    // A step's results are in the tool messages right after its model message.
    const answered = new Set<string>();
    let next = index + 1;
    const answers = messages[next]?.role === 'tool' ? messages[next] : undefined;
    while (messages[next]?.role === 'tool') {
      for (const part of (messages[next] as StoredMessage).parts)
        if (part.type === 'tool_result') answered.add(part.toolCallId);
      next++;
    }
    const unanswered = calls.filter((call) => !answered.has(call.toolCallId));
    if (unanswered.length === 0) return;
    changes.answered.push(...unanswered.map((call) => call.toolCallId));
    const aborted = new Set(unanswered);
    changes.update.push({
      id: message.id,
      parts: message.parts.map(
        (part): MessagePart =>
          part.type === 'tool_call' && aborted.has(part)
            ? { ...part, status: 'aborted' as const, errorCode: 'aborted' as const }
            : part,
      ),
    });
    const results = unanswered.map(abortedResult);
    if (answers) changes.update.push({ id: answers.id, parts: [...answers.parts, ...results] });
    else if (next === messages.length) changes.append.push({ role: 'tool', parts: results });
    // Otherwise a later message follows with no tool message between (not something this
    // server writes); replays answer those calls through `normalizeHistory`.
  });
  return changes;
}

/**
 * Repairs the chat's stored messages; resolves to the ids of the calls
 * answered and the messages as now stored.
 */
export async function answerUnansweredToolCalls(
  chats: Pick<ChatRepository, 'listMessages' | 'saveMessages'>,
  chatId: string,
): Promise<{ answered: string[]; messages: StoredMessage[] }> {
  const messages = await chats.listMessages(chatId);
  const { answered, ...changes } = planUnansweredToolCallRepair(messages);
  if (answered.length === 0) return { answered, messages };
  await chats.saveMessages(chatId, changes);
  // Read again only after a repair: the common case reads the history once.
  return { answered, messages: await chats.listMessages(chatId) };
}
