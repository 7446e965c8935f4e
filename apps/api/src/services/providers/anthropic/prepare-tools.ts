/**
 * Tool definitions and choice → Anthropic `tools` / `tool_choice`. Anthropic
 * refuses a request whose history holds tool blocks unless tools are defined,
 * so tools are never dropped to stop the model calling them: `none` is sent as
 * `tool_choice: {type: "none"}`, and when no tool is enabled any more, the
 * tools named in history are declared as stand-ins with `tool_choice: none`.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ConversationMessage } from '@mango/shared';
import type { ProviderToolChoice, ToolDefinition } from '../spec';
import { toolDefsToAnthropic } from '../tool-mapper';
import { historyHasToolBlocks } from './convert-messages';

function standInTools(messages: readonly ConversationMessage[]): Anthropic.Messages.Tool[] {
  const names = new Set<string>();
  for (const message of messages)
    for (const part of message.parts)
      if (
        (part.type === 'tool_call' || part.type === 'tool_result') &&
        /^[a-zA-Z0-9_-]{1,64}$/.test(part.name)
      )
        names.add(part.name);
  if (names.size === 0) names.add('unavailable_tool');
  return [...names].map((name) => ({
    name,
    description: 'This tool was used earlier in the conversation and is no longer available.',
    input_schema: { type: 'object', properties: {} },
  }));
}

export function prepareAnthropicTools(
  tools: readonly ToolDefinition[],
  toolChoice: ProviderToolChoice = 'auto',
  messages: readonly ConversationMessage[] = [],
): { tools?: Anthropic.Messages.Tool[]; tool_choice?: Anthropic.Messages.ToolChoice } {
  if (tools.length === 0) {
    if (!historyHasToolBlocks(messages)) return {};
    return { tools: standInTools(messages), tool_choice: { type: 'none' } };
  }
  const choice: Anthropic.Messages.ToolChoice =
    toolChoice === 'none'
      ? { type: 'none' }
      : toolChoice === 'required'
        ? { type: 'any' }
        : { type: 'auto' };
  return { tools: toolDefsToAnthropic(tools), tool_choice: choice };
}
