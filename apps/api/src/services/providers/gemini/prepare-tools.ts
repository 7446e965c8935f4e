/** Tool definitions and choice → Gemini `tools` (function declarations) and `toolConfig`. */
import type { FunctionCallingConfigMode, Tool, ToolConfig } from '@google/genai';
import type { ProviderToolChoice, ToolDefinition } from '../spec';
import { toolDefsToGeminiInteractions } from '../tool-mapper';

// The SDK's enum values, written out: importing the enum would load the whole
// SDK with this module (it is loaded on first use, docs/chat-turns.md#what-a-full-collection-costs).
const MODES: Record<ProviderToolChoice, FunctionCallingConfigMode> = {
  auto: 'AUTO' as FunctionCallingConfigMode.AUTO,
  none: 'NONE' as FunctionCallingConfigMode.NONE,
  required: 'ANY' as FunctionCallingConfigMode.ANY,
};

export function prepareGeminiTools(
  tools: readonly ToolDefinition[],
  toolChoice: ProviderToolChoice = 'auto',
): { tools?: Tool[]; toolConfig?: ToolConfig } {
  if (tools.length === 0) return {};
  return {
    tools: [
      {
        functionDeclarations: toolDefsToGeminiInteractions(tools) as Tool['functionDeclarations'],
      },
    ],
    toolConfig: { functionCallingConfig: { mode: MODES[toolChoice] } },
  };
}

/**
 * A schema as the SDK puts it on the wire: `@google/genai` rewrites every
 * schema `type` in upper case (its `Type` enum) before sending. The
 * capabilities inspector shows the request as sent, so it applies the same
 * rewrite (a test compares it with what a real turn sends).
 */
function withSdkTypeNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSdkTypeNames);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === 'type' && typeof item === 'string' ? item.toUpperCase() : withSdkTypeNames(item),
    ]),
  );
}

/** The tool fields of a request as they reach Gemini (see `withSdkTypeNames`). */
export function geminiToolRequestFields(tools: readonly ToolDefinition[]): Record<string, unknown> {
  const fields = prepareGeminiTools(tools, 'auto');
  if (!fields.tools) return fields;
  return {
    ...fields,
    tools: fields.tools.map((tool) => ({
      ...tool,
      functionDeclarations: tool.functionDeclarations?.map((declaration) =>
        declaration.parameters
          ? { ...declaration, parameters: withSdkTypeNames(declaration.parameters) }
          : declaration,
      ),
    })),
  };
}
