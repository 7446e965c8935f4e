/** Tool definitions and choice → Chat Completions `tools` / `tool_choice`. */
import type {
  ChatCompletionFunctionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { ToolDefinition } from '../../tools/types';
import type { ProviderToolChoice, ProviderToolDefinition } from '../spec';
import { toolDefsToChatCompletions } from '../tool-mapper';

export function prepareChatCompletionsTools(
  tools: readonly ProviderToolDefinition[],
  toolChoice: ProviderToolChoice = 'auto',
): { tools?: ChatCompletionFunctionTool[]; tool_choice?: ChatCompletionToolChoiceOption } {
  if (tools.length === 0) return {};
  return {
    tools: toolDefsToChatCompletions(tools as readonly ToolDefinition[]),
    tool_choice: toolChoice,
  };
}
