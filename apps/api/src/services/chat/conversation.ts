/** Stored messages as the loop and the adapters see them. */
import type { ConversationMessage } from '@mango/shared';
import type { StoredMessage } from './chat-repository';

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
