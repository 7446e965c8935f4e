/** Tool definitions and choice → Chat Completions `tools` / `tool_choice`. */
import type {
  ChatCompletionFunctionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { ProviderToolChoice, ToolDefinition } from '../spec';
import { toolDefsToChatCompletions } from '../tool-mapper';

export function prepareChatCompletionsTools(
  tools: readonly ToolDefinition[],
  toolChoice: ProviderToolChoice = 'auto',
): { tools?: ChatCompletionFunctionTool[]; tool_choice?: ChatCompletionToolChoiceOption } {
  if (tools.length === 0) return {};
  return {
    tools: toolDefsToChatCompletions(tools),
    tool_choice: toolChoice,
  };
}
