/**
 * Makes a stored conversation safe to replay to any provider. Every provider
 * rejects a tool call without a result (or a result without its call), so
 * whatever a crash or an old bug left behind is repaired here, once, before the
 * adapters convert it: each assistant tool call is answered right after its
 * message (missing answers become `aborted` error results), stray results and
 * empty messages are dropped, and the results of one step become one message.
 * Images a tool attached (an `image` part with a `toolCallId`) are left out:
 * the call's result already carries their references, and no provider takes
 * images in a model's own message (docs/images.md#history).
 */
import type {
  AssistantMessage,
  ConversationMessage,
  ToolMessage,
  ToolResultPart,
} from '@mango/shared';

export const MISSING_RESULT_CONTENT = JSON.stringify({
  error: {
    code: 'aborted',
    message: 'This tool call was interrupted before it produced a result.',
  },
});

export function normalizeHistory(messages: readonly ConversationMessage[]): ConversationMessage[] {
  const normalized: ConversationMessage[] = [];
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as ConversationMessage;
    index++;
    if (message.role === 'tool' || message.parts.length === 0) continue;
    if (message.role !== 'assistant') {
      normalized.push(message);
      continue;
    }
    const kept = (message as AssistantMessage).parts.filter(
      (part) => part.type !== 'image' || part.toolCallId === undefined,
    );
    if (kept.length === 0) continue;
    normalized.push(kept.length === message.parts.length ? message : { ...message, parts: kept });
    const calls = (message as AssistantMessage).parts.filter((part) => part.type === 'tool_call');
    if (calls.length === 0) continue;
    const answers = new Map<string, ToolResultPart>();
    while (index < messages.length && (messages[index] as ConversationMessage).role === 'tool') {
      for (const part of (messages[index] as ToolMessage).parts)
        if (!answers.has(part.toolCallId)) answers.set(part.toolCallId, part);
      index++;
    }
    const results: ToolResultPart[] = calls.map(
      (call) =>
        answers.get(call.toolCallId) ?? {
          type: 'tool_result',
          toolCallId: call.toolCallId,
          name: call.name,
          content: MISSING_RESULT_CONTENT,
          isError: true,
        },
    );
    normalized.push({ role: 'tool', parts: results });
  }
  return normalized;
}

/** `data:` URLs are sent inline; anything else (a stored image's URL) is mentioned as text. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = url.match(/^data:([^;,]+);base64,(.*)$/s);
  return match ? { mediaType: match[1] as string, data: match[2] as string } : undefined;
}
