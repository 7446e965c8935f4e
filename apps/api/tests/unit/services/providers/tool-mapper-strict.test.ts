/**
 * Every built-in is sent to OpenAI Responses with `strict: true` (docs/tool-system.md#the-tool-mapper). The
 * list comes from the registry, so a tool added later is covered without editing
 * this file; a tool that fails is fixed, not exempted.
 */
import { describe, expect, test } from 'bun:test';
import {
  isStrictCompatible,
  strictCompatibilityProblems,
  toolDefsToResponsesAPI,
  toStrictSchema,
} from '../../../../src/services/providers/tool-mapper';
import {
  getDefaultToolSettings,
  getToolDefinition,
  listTools,
} from '../../../../src/services/tools';
import type { JsonSchema } from '../../../../src/services/tools/types';

const builtIns = listTools();

describe('strict mode for every built-in, by tool id', () => {
  test('the registry holds built-ins to check', () => {
    expect(builtIns.length).toBeGreaterThan(0);
  });

  for (const tool of builtIns) {
    const name = tool.definition.name;
    test(`${name}: the derived schema is strict-compatible and sent with strict: true`, () => {
      const definitions = [tool.definition, getToolDefinition(tool, getDefaultToolSettings(tool))];
      for (const definition of definitions) {
        expect(strictCompatibilityProblems(toStrictSchema(definition.parameters))).toEqual([]);
        const [wire] = toolDefsToResponsesAPI([definition]);
        expect(wire?.name).toBe(name);
        expect(wire?.strict).toBe(true);
      }
    });
  }
});

describe('isStrictCompatible matrix', () => {
  const closed = (
    properties: Record<string, JsonSchema>,
    extra: Partial<JsonSchema> = {},
  ): JsonSchema => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    ...extra,
  });

  const cases: Array<[string, JsonSchema, boolean]> = [
    ['closed object, all required', closed({ a: { type: 'string' } }), true],
    ['empty closed object', closed({}), true],
    ['nullable property', closed({ a: { type: ['integer', 'null'], minimum: 1 } }), true],
    [
      'enum, pattern, minItems/maxItems, minimum/maximum survive',
      closed({
        a: { type: 'string', enum: ['x', 'y'] },
        b: { type: 'string', pattern: '^a' },
        c: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
        d: { type: 'number', minimum: 0, maximum: 1 },
      }),
      true,
    ],
    [
      'argument named like a keyword (maxLength, not, anyOf)',
      closed({
        maxLength: { type: 'integer' },
        not: { type: 'boolean' },
        anyOf: { type: 'string' },
      }),
      true,
    ],
    ['root not an object', { type: 'string' }, false],
    ['root type missing', { properties: {}, required: [], additionalProperties: false }, false],
    [
      'additionalProperties missing',
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      false,
    ],
    [
      'additionalProperties true',
      closed({ a: { type: 'string' } }, { additionalProperties: true }),
      false,
    ],
    [
      'optional property',
      closed({ a: { type: 'string' }, b: { type: 'string' } }, { required: ['a'] }),
      false,
    ],
    ['minLength', closed({ a: { type: 'string', minLength: 1 } }), false],
    ['maxLength', closed({ a: { type: 'string', maxLength: 9 } }), false],
    ['oneOf', closed({ a: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }), false],
    ['anyOf', closed({ a: { anyOf: [{ type: 'string' }, { type: 'null' }] } }), false],
    ['allOf', closed({ a: { allOf: [{ type: 'string' }] } }), false],
    ['not', closed({ a: { type: 'string', not: { enum: ['x'] } } }), false],
    ['$ref', closed({ a: { $ref: '#/$defs/x' } }), false],
    ['default', closed({ a: { type: 'string', default: 'x' } }), false],
    [
      'nested object not closed',
      closed({ inner: { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] } }),
      false,
    ],
    [
      'nested object with an optional key',
      closed({
        inner: {
          type: 'object',
          properties: { b: { type: 'string' } },
          required: [],
          additionalProperties: false,
        },
      }),
      false,
    ],
    [
      'array of objects with an optional key',
      closed({
        list: {
          type: 'array',
          items: {
            type: 'object',
            properties: { b: { type: 'string' } },
            additionalProperties: false,
          },
        },
      }),
      false,
    ],
    [
      'minLength deep in an array item',
      closed({ list: { type: 'array', items: { type: 'string', minLength: 1 } } }),
      false,
    ],
  ];

  for (const [label, schema, expected] of cases) {
    test(`${label} → ${expected}`, () => {
      expect(isStrictCompatible(schema)).toBe(expected);
    });
  }
});
