import { describe, expect, test } from 'bun:test';
import {
  toolDefsToAnthropic,
  toolDefsToChatCompletions,
  toolDefsToGeminiInteractions,
  toolDefsToResponsesAPI,
  toStrictSchema,
} from '../../../../src/services/providers/tool-mapper';
import type { JsonSchema, ToolDefinition } from '../../../../src/services/tools/types';

const readFileLike: ToolDefinition = {
  name: 'read_file',
  description: 'Reads a file.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, description: 'The file.' },
      startLine: { type: 'integer', minimum: 1 },
      view: { type: 'string', enum: ['text', 'hex'] },
    },
    required: ['path'],
    additionalProperties: false,
  },
};

describe('toolDefsToResponsesAPI', () => {
  test('strict: true with the derived schema when it qualifies', () => {
    const [tool] = toolDefsToResponsesAPI([readFileLike]);
    expect(tool).toEqual({
      type: 'function',
      name: 'read_file',
      description: 'Reads a file.',
      parameters: toStrictSchema(readFileLike.parameters) as Record<string, unknown>,
      strict: true,
    });
  });

  test('strict: false with the source schema when it cannot qualify (an MCP schema with oneOf)', () => {
    const mcp: ToolDefinition = {
      name: 'mcp__srv__query',
      description: 'Query.',
      parameters: {
        type: 'object',
        properties: { value: { oneOf: [{ type: 'string' }, { type: 'number' }] } },
        required: ['value'],
      },
    };
    const [tool] = toolDefsToResponsesAPI([mcp]);
    expect(tool?.strict).toBe(false);
    expect(tool?.parameters).toEqual(mcp.parameters as Record<string, unknown>);
  });

  test('a schema without type gets an object root rather than breaking the request', () => {
    const [tool] = toolDefsToResponsesAPI([
      { name: 'loose', description: 'x', parameters: { properties: { a: { type: 'string' } } } },
    ]);
    expect(tool?.strict).toBe(true);
    expect((tool?.parameters as JsonSchema | undefined)?.type).toBe('object');
  });
});

describe('toolDefsToChatCompletions and toolDefsToAnthropic', () => {
  test('Chat Completions: function tools with the source schema', () => {
    expect(toolDefsToChatCompletions([readFileLike])).toEqual([
      {
        type: 'function',
        function: {
          name: 'read_file',
          description: 'Reads a file.',
          parameters: readFileLike.parameters as Record<string, unknown>,
        },
      },
    ]);
  });

  test('Anthropic: name, description, input_schema with length limits kept', () => {
    const [tool] = toolDefsToAnthropic([readFileLike]);
    expect(tool).toEqual({
      name: 'read_file',
      description: 'Reads a file.',
      input_schema: readFileLike.parameters as never,
    });
    const properties = tool?.input_schema.properties as Record<string, JsonSchema> | undefined;
    expect(properties?.path?.minLength).toBe(1);
  });
});

describe('Gemini subset', () => {
  test('keeps what Gemini accepts (types, enums, limits, required) and drops additionalProperties', () => {
    const [declaration] = toolDefsToGeminiInteractions([readFileLike]);
    expect(declaration).toEqual({
      name: 'read_file',
      description: 'Reads a file.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', minLength: 1, description: 'The file.' },
          startLine: { type: 'integer', minimum: 1 },
          view: { type: 'string', enum: ['text', 'hex'] },
        },
        required: ['path'],
      },
    });
  });

  test('a tool without arguments is declared without parameters', () => {
    expect(
      toolDefsToGeminiInteractions([
        { name: 'ping', description: 'Ping.', parameters: { type: 'object', properties: {} } },
      ]),
    ).toEqual([{ name: 'ping', description: 'Ping.' }]);
  });
});
