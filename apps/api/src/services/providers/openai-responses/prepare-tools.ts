/** Tool definitions and choice → Responses `tools` (strict set explicitly on each) / `tool_choice`. */
import type { FunctionTool, ToolChoiceOptions } from 'openai/resources/responses/responses';
import type { ProviderToolChoice, ToolDefinition } from '../spec';
import { toolDefsToResponsesAPI } from '../tool-mapper';

export function prepareResponsesTools(
  tools: readonly ToolDefinition[],
  toolChoice: ProviderToolChoice = 'auto',
): { tools?: FunctionTool[]; tool_choice?: ToolChoiceOptions } {
  if (tools.length === 0) return {};
  return {
    tools: toolDefsToResponsesAPI(tools),
    tool_choice: toolChoice,
  };
}
