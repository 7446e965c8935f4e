/** History → Chat Completions `messages` (tool results as `role: "tool"` by `tool_call_id`). */
import type { ConversationMessage } from '@mango/shared';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import { normalizeHistory, parseDataUrl } from '../shared/normalize-history';
import { argumentsAsJsonText } from '../shared/tool-call-ids';

export function toChatCompletionsMessages(
  system: string | undefined,
  messages: readonly ConversationMessage[],
): ChatCompletionMessageParam[] {
  const converted: ChatCompletionMessageParam[] = [];
  if (system) converted.push({ role: 'system', content: system });
  for (const message of normalizeHistory(messages)) {
    if (message.role === 'user') {
      const hasImage = message.parts.some((part) => part.type === 'image');
      if (!hasImage) {
        converted.push({
          role: 'user',
          content: message.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
        });
        continue;
      }
      const content: ChatCompletionContentPart[] = message.parts.map((part) => {
        if (part.type === 'text') return { type: 'text', text: part.text };
        return parseDataUrl(part.url)
          ? { type: 'image_url', image_url: { url: part.url } }
          : { type: 'text', text: `[image: ${part.url}]` };
      });
      converted.push({ role: 'user', content });
    } else if (message.role === 'assistant') {
      // Reasoning is not replayed: Chat Completions has no field for it in requests.
      const text = message.parts
        .map((part) =>
          part.type === 'text' ? part.text : part.type === 'image' ? `[image: ${part.url}]` : '',
        )
        .join('');
      const toolCalls: ChatCompletionMessageToolCall[] = message.parts.flatMap((part) =>
        part.type === 'tool_call'
          ? [
              {
                id: part.toolCallId,
                type: 'function' as const,
                function: { name: part.name, arguments: argumentsAsJsonText(part.arguments) },
              },
            ]
          : [],
      );
      if (text === '' && toolCalls.length === 0) continue;
      converted.push({
        role: 'assistant',
        content: text === '' ? null : text,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      });
    } else {
      for (const result of message.parts)
        converted.push({ role: 'tool', tool_call_id: result.toolCallId, content: result.content });
    }
  }
  return converted;
}
