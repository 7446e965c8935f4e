import { describe, expect, test } from 'bun:test';
import {
  isStrictCompatible,
  toStrictSchema,
} from '../../../../../src/services/providers/openai-responses/strict-schema';
import type { JsonSchema } from '../../../../../src/services/tools/types';

const readFileLikeSchema: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1, description: 'The file.' },
    startLine: { type: 'integer', minimum: 1 },
    view: { type: 'string', enum: ['text', 'hex'] },
  },
  required: ['path'],
  additionalProperties: false,
};

describe('toStrictSchema (docs/tool-system.md#the-tool-mapper)', () => {
  test('the documented example: an optional integer becomes a required nullable one, minimum kept', () => {
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
    const strict = toStrictSchema(readFileLikeSchema);
    expect(strict.properties?.path).toEqual({ type: 'string', description: 'The file.' });
    expect(strict.properties?.view).toEqual({
      type: ['string', 'null'],
      enum: ['text', 'hex', null],
    });
    expect(isStrictCompatible(strict)).toBe(true);
  });

  test('does not modify its input', () => {
    const source = structuredClone(readFileLikeSchema);
    toStrictSchema(source);
    expect(source).toEqual(readFileLikeSchema);
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
