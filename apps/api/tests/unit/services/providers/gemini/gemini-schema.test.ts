import { describe, expect, test } from 'bun:test';
import { toGeminiSchema } from '../../../../../src/services/providers/gemini/gemini-schema';
import type { JsonSchema } from '../../../../../src/services/tools/types';

describe('Gemini subset', () => {
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
