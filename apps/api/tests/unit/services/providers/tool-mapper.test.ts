import { describe, expect, test } from 'bun:test';
import {
  isStrictCompatible,
  toGeminiSchema,
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

describe('toStrictSchema (SPEC §9)', () => {
  test('the SPEC example: an optional integer becomes a required nullable one, minimum kept', () => {
    const source: JsonSchema = {
      type: 'object',
      properties: { path: { type: 'string' }, startLine: { type: 'integer', minimum: 1 } },
      required: ['path'],
    };
    expect(toStrictSchema(source)).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string' },
        startLine: { type: ['integer', 'null'], minimum: 1 },
      },
      required: ['path', 'startLine'],
      additionalProperties: false,
    });
  });

  test('drops length limits and defaults, keeps pattern and enum (with null added for an optional enum)', () => {
    const strict = toStrictSchema(readFileLike.parameters);
    expect(strict.properties?.path).toEqual({ type: 'string', description: 'The file.' });
    expect(strict.properties?.view).toEqual({
      type: ['string', 'null'],
      enum: ['text', 'hex', null],
    });
    expect(isStrictCompatible(strict)).toBe(true);
  });

  test('does not modify its input', () => {
    const source = structuredClone(readFileLike.parameters);
    toStrictSchema(source);
    expect(source).toEqual(readFileLike.parameters);
  });

  test('transforms every nesting level: nested objects, arrays of objects, nullable objects', () => {
    const source: JsonSchema = {
      type: 'object',
      properties: {
        options: {
          type: 'object',
          properties: { depth: { type: 'integer' }, name: { type: 'string', maxLength: 5 } },
          required: ['depth'],
        },
        edits: {
          type: 'array',
          items: {
            type: 'object',
            properties: { oldString: { type: 'string' }, replaceAll: { type: 'boolean' } },
            required: ['oldString'],
          },
        },
        meta: { type: ['object', 'null'], properties: { tag: { type: 'string' } } },
      },
      required: ['edits'],
    };
    const strict = toStrictSchema(source);
    expect(strict).toEqual({
      type: 'object',
      properties: {
        options: {
          type: ['object', 'null'],
          properties: { depth: { type: 'integer' }, name: { type: ['string', 'null'] } },
          required: ['depth', 'name'],
          additionalProperties: false,
        },
        edits: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              oldString: { type: 'string' },
              replaceAll: { type: ['boolean', 'null'] },
            },
            required: ['oldString', 'replaceAll'],
            additionalProperties: false,
          },
        },
        meta: {
          type: ['object', 'null'],
          properties: { tag: { type: ['string', 'null'] } },
          required: ['tag'],
          additionalProperties: false,
        },
      },
      required: ['options', 'edits', 'meta'],
      additionalProperties: false,
    });
    expect(isStrictCompatible(strict)).toBe(true);
  });

  test('arguments named like keywords are transformed as arguments', () => {
    const strict = toStrictSchema({
      type: 'object',
      properties: { maxLength: { type: 'integer' }, properties: { type: 'string' } },
    });
    expect(strict.required).toEqual(['maxLength', 'properties']);
    expect(strict.properties?.maxLength).toEqual({ type: ['integer', 'null'] });
    expect(isStrictCompatible(strict)).toBe(true);
  });
});

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

  test('type arrays become nullable', () => {
    expect(toGeminiSchema({ type: ['integer', 'null'], minimum: 1 })).toEqual({
      type: 'integer',
      nullable: true,
      minimum: 1,
    });
  });

  test('a union of several non-null types becomes anyOf', () => {
    expect(toGeminiSchema({ type: ['string', 'number'] })).toEqual({
      anyOf: [{ type: 'string' }, { type: 'number' }],
    });
  });

  test('anyOf with a null branch becomes a nullable single schema', () => {
    expect(toGeminiSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toEqual({
      type: 'string',
      nullable: true,
    });
  });

  test('const becomes a one-value enum; enums become strings', () => {
    expect(toGeminiSchema({ const: 'only' })).toEqual({ type: 'string', enum: ['only'] });
    expect(toGeminiSchema({ type: 'integer', enum: [1, 2] })).toEqual({
      type: 'string',
      enum: ['1', '2'],
    });
  });

  test('$schema, examples, additionalProperties and unknown keywords are removed', () => {
    const schema = toGeminiSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { type: 'string', examples: ['x'], format: 'uri', 'x-custom': 1 } },
      additionalProperties: false,
    } as JsonSchema);
    expect(schema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  test('$ref into $defs is inlined and $defs removed; recursion is cut', () => {
    const schema = toGeminiSchema({
      type: 'object',
      properties: { node: { $ref: '#/$defs/node' } },
      $defs: {
        node: {
          type: 'object',
          properties: { label: { type: 'string' }, child: { $ref: '#/$defs/node' } },
        },
      },
    });
    expect(JSON.stringify(schema)).not.toContain('$ref');
    expect(JSON.stringify(schema)).not.toContain('$defs');
    expect(schema.properties?.node?.properties?.label).toEqual({ type: 'string' });
    expect(schema.properties?.node?.properties?.child?.type).toBe('object');
  });

  test('required names that are not properties are dropped', () => {
    expect(
      toGeminiSchema({
        type: 'object',
        properties: { a: { type: 'string' } },
        required: ['a', 'ghost'],
      }),
    ).toEqual({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
  });

  test('string formats other than enum and date-time are dropped', () => {
    expect(toGeminiSchema({ type: 'string', format: 'date-time' })).toEqual({
      type: 'string',
      format: 'date-time',
    });
    expect(toGeminiSchema({ type: 'string', format: 'email' })).toEqual({ type: 'string' });
  });

  test('a tool without arguments is declared without parameters', () => {
    expect(
      toolDefsToGeminiInteractions([
        { name: 'ping', description: 'Ping.', parameters: { type: 'object', properties: {} } },
      ]),
    ).toEqual([{ name: 'ping', description: 'Ping.' }]);
  });

  test('allOf of objects is merged into one object', () => {
    expect(
      toGeminiSchema({
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'integer' } } },
        ],
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
      required: ['a'],
    });
  });
});
