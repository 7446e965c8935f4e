/**
 * History → Responses `input` items. Calls go back as `function_call` items and
 * results as `function_call_output` matched by `call_id`. Items are sent
 * without their server ids (`fc_…`, `rs_…`): requests are not stored
 * (`store: false`), so there is nothing to reference, and a function call
 * without an id needs no reasoning item beside it.
 */
import type { ConversationMessage } from '@mango/shared';
import type { ResponseInputContent, ResponseInputItem } from 'openai/resources/responses/responses';
import { normalizeHistory, parseDataUrl } from '../shared/normalize-history';
import { argumentsAsJsonText } from '../shared/tool-call-ids';

export function toResponsesInput(messages: readonly ConversationMessage[]): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const message of normalizeHistory(messages)) {
    if (message.role === 'user') {
      const content: ResponseInputContent[] = message.parts.map((part) => {
        if (part.type === 'text') return { type: 'input_text', text: part.text };
        return parseDataUrl(part.url)
          ? { type: 'input_image', image_url: part.url, detail: 'auto' }
          : { type: 'input_text', text: `[image: ${part.url}]` };
      });
      input.push({ role: 'user', content });
    } else if (message.role === 'assistant') {
      let text = '';
      const flushText = () => {
        if (text !== '') input.push({ role: 'assistant', content: text });
        text = '';
      };
      for (const part of message.parts) {
        if (part.type === 'text') text += part.text;
        else if (part.type === 'image') text += `[image: ${part.url}]`;
        else if (part.type === 'tool_call') {
          flushText();
          input.push({
            type: 'function_call',
            call_id: part.toolCallId,
            name: part.name,
            arguments: argumentsAsJsonText(part.arguments),
          });
        }
      }
      flushText();
    } else {
      for (const result of message.parts)
        input.push({
          type: 'function_call_output',
          call_id: result.toolCallId,
          output: result.content,
        });
    }
  }
  return input;
}
