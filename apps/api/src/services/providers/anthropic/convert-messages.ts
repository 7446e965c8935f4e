/**
 * History → Anthropic `messages`. A step's tool calls become `tool_use` blocks
 * (after its text), and all of its results go back as `tool_result` blocks by
 * `tool_use_id` in the one next user message, before any text that follows.
 * `tool_use.input` must be an object, so arguments that were not valid JSON
 * are replayed as `{}` (the model already got a validation error for them).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ConversationMessage } from '@mango/shared';
import { normalizeHistory, parseDataUrl } from '../shared/normalize-history';
import { argumentsAsObject } from '../shared/tool-call-ids';

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;

/** Anthropic accepts `^[a-zA-Z0-9_-]+$` ids; ids from other providers may hold other characters. */
export function toAnthropicToolUseId(toolCallId: string): string {
  const sanitized = toolCallId.replace(/[^a-zA-Z0-9_-]/g, '_');
  return sanitized === '' ? 'call' : sanitized;
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function imageBlock(url: string): ContentBlockParam {
  const inline = parseDataUrl(url);
  if (inline && IMAGE_TYPES.has(inline.mediaType))
    return {
      type: 'image',
      source: {
        type: 'base64',
        media_type: inline.mediaType as 'image/png',
        data: inline.data,
      },
    };
  return { type: 'text', text: `[image: ${url}]` };
}

export function toAnthropicMessages(messages: readonly ConversationMessage[]): MessageParam[] {
  const converted: MessageParam[] = [];
  const pushUser = (blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const previous = converted.at(-1);
    // Results and the text after them share one user message, results first.
    if (previous?.role === 'user' && Array.isArray(previous.content))
      previous.content.push(...blocks);
    else converted.push({ role: 'user', content: blocks });
  };
  for (const message of normalizeHistory(messages)) {
    if (message.role === 'user') {
      pushUser(
        message.parts.flatMap((part): ContentBlockParam[] => {
          if (part.type === 'text')
            return part.text === '' ? [] : [{ type: 'text', text: part.text }];
          return [imageBlock(part.url)];
        }),
      );
    } else if (message.role === 'assistant') {
      const leading: ContentBlockParam[] = [];
      const toolUses: ContentBlockParam[] = [];
      for (const part of message.parts) {
        if (part.type === 'text' && part.text !== '')
          leading.push({ type: 'text', text: part.text });
        else if (part.type === 'image')
          leading.push({ type: 'text', text: `[image: ${part.url}]` });
        else if (part.type === 'reasoning') {
          const signature = part.providerMetadata?.anthropic?.signature;
          // Only Anthropic's own signed thinking can be replayed; anyone else's reasoning is left out.
          if (typeof signature === 'string')
            leading.push({ type: 'thinking', thinking: part.text, signature });
        } else if (part.type === 'tool_call') {
          toolUses.push({
            type: 'tool_use',
            id: toAnthropicToolUseId(part.toolCallId),
            name: part.name,
            input: argumentsAsObject(part.arguments),
          });
        }
      }
      // tool_use blocks close the assistant message.
      const content = [...leading, ...toolUses];
      if (content.length > 0) converted.push({ role: 'assistant', content });
    } else {
      pushUser(
        message.parts.map((result) => ({
          type: 'tool_result' as const,
          tool_use_id: toAnthropicToolUseId(result.toolCallId),
          content: result.content,
          ...(result.isError ? { is_error: true } : {}),
        })),
      );
    }
  }
  return converted;
}

export function historyHasToolBlocks(messages: readonly ConversationMessage[]): boolean {
  return messages.some(
    (message) =>
      message.role === 'tool' ||
      (message.role === 'assistant' && message.parts.some((part) => part.type === 'tool_call')),
  );
}
