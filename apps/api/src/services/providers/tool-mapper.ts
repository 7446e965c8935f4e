/**
 * The tool mapper (docs/tool-system.md#the-tool-mapper): internal `ToolDefinition`s to each provider's wire
 * format. Source schemas are plain JSON Schema; the OpenAI Responses strict
 * dialect (`openai-responses/strict-schema.ts`) and Gemini's schema subset
 * (`gemini/gemini-schema.ts`) live beside their providers and are applied here,
 * at the boundary, and nowhere else. Nothing in this module throws on a schema
 * it did not expect: MCP schemas nobody here wrote fall back to `strict: false`
 * or are trimmed.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { isPlainObject } from '../../is-plain-object';
import { type GeminiSchema, toGeminiSchema } from './gemini/gemini-schema';
import { isStrictCompatible, toStrictSchema } from './openai-responses/strict-schema';
import type { JsonSchema, ToolDefinition } from './spec';

export { type GeminiSchema, toGeminiSchema } from './gemini/gemini-schema';
export {
  isStrictCompatible,
  strictCompatibilityProblems,
  toStrictSchema,
} from './openai-responses/strict-schema';

/** A root schema every provider accepts: an object, even when the source omitted `type`. */
function rootObjectSchema(parameters: unknown): JsonSchema {
  if (!isPlainObject(parameters)) return { type: 'object', properties: {} };
  return { ...parameters, type: 'object' } as JsonSchema;
}

// ---- OpenAI Responses and Chat Completions ----

export type ResponsesFunctionTool = FunctionTool;

export function toolDefsToResponsesAPI(
  definitions: readonly ToolDefinition[],
): ResponsesFunctionTool[] {
  return definitions.map((definition) => {
    const source = rootObjectSchema(definition.parameters);
    const strict = toStrictSchema(source);
    const qualifies = isStrictCompatible(strict);
    return {
      type: 'function',
      name: definition.name,
      description: definition.description,
      parameters: (qualifies ? strict : source) as Record<string, unknown>,
      strict: qualifies,
    };
  });
}

export function toolDefsToChatCompletions(
  definitions: readonly ToolDefinition[],
): ChatCompletionFunctionTool[] {
  return definitions.map((definition) => ({
    type: 'function',
    function: {
      name: definition.name,
      description: definition.description,
      parameters: rootObjectSchema(definition.parameters) as Record<string, unknown>,
    },
  }));
}

// ---- Anthropic Messages ----

export type AnthropicTool = Anthropic.Messages.Tool;

export function toolDefsToAnthropic(definitions: readonly ToolDefinition[]): AnthropicTool[] {
  return definitions.map((definition) => ({
    name: definition.name,
    description: definition.description,
    input_schema: rootObjectSchema(definition.parameters) as AnthropicTool['input_schema'],
  }));
}

// ---- Gemini ----

export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  /** Absent for a tool without arguments: Gemini rejects an object schema with no properties. */
  parameters?: GeminiSchema;
}

export function toolDefsToGeminiInteractions(
  definitions: readonly ToolDefinition[],
): GeminiFunctionDeclaration[] {
  return definitions.map((definition) => {
    const parameters = toGeminiSchema(rootObjectSchema(definition.parameters));
    const declaration: GeminiFunctionDeclaration = {
      name: definition.name,
      description: definition.description,
    };
    if (parameters.properties && Object.keys(parameters.properties).length > 0)
      declaration.parameters = parameters;
    return declaration;
  });
}
