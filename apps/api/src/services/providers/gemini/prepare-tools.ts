/** Tool definitions and choice → Gemini `tools` (function declarations) and `toolConfig`. */
import { FunctionCallingConfigMode, type Tool, type ToolConfig } from '@google/genai';
import type { ToolDefinition } from '../../tools/types';
import type { ProviderToolChoice, ProviderToolDefinition } from '../spec';
import { toolDefsToGeminiInteractions } from '../tool-mapper';

const MODES: Record<ProviderToolChoice, FunctionCallingConfigMode> = {
  auto: FunctionCallingConfigMode.AUTO,
  none: FunctionCallingConfigMode.NONE,
  required: FunctionCallingConfigMode.ANY,
};

export function prepareGeminiTools(
  tools: readonly ProviderToolDefinition[],
  toolChoice: ProviderToolChoice = 'auto',
): { tools?: Tool[]; toolConfig?: ToolConfig } {
  if (tools.length === 0) return {};
  return {
    tools: [
      {
        functionDeclarations: toolDefsToGeminiInteractions(
          tools as readonly ToolDefinition[],
        ) as Tool['functionDeclarations'],
      },
    ],
    toolConfig: { functionCallingConfig: { mode: MODES[toolChoice] } },
  };
}
