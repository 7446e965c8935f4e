import { describe, expect, test } from 'bun:test';
import { parseToolArguments, requireNonBlank } from '../../../../src/services/tools/arg-parsing';
import { ToolArgumentError } from '../../../../src/services/tools/errors';
import type { JsonSchema } from '../../../../src/services/tools/types';

const grepLike: JsonSchema = {
  type: 'object',
  properties: {
    pattern: { type: 'string', minLength: 1, maxLength: 20 },
    path: { type: 'string', minLength: 1 },
    caseInsensitive: { type: 'boolean' },
    maxLines: { type: 'integer', minimum: 1, maximum: 5000 },
    view: { type: 'string', enum: ['text', 'hex', 'base64'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    range: {
      type: 'object',
      properties: { from: { type: 'integer' }, to: { type: 'integer' } },
      required: ['from'],
      additionalProperties: false,
    },
  },
  required: ['pattern'],
  additionalProperties: false,
};

function refusal(args: unknown, schema: JsonSchema = grepLike): ToolArgumentError {
  try {
    parseToolArguments(args, schema);
  } catch (error) {
    if (error instanceof ToolArgumentError) return error;
    throw error;
  }
  throw new Error('expected a ToolArgumentError');
}

describe('parseToolArguments (docs/tool-system.md#tool-arguments)', () => {
  test('valid arguments come back unchanged', () => {
    const args = { pattern: 'foo', caseInsensitive: true, maxLines: 10, view: 'hex', tags: ['a'] };
    expect(parseToolArguments(args, grepLike)).toEqual(args);
  });

  test('null is read as absent, exactly like an omitted key', () => {
    const withNulls = parseToolArguments(
      { pattern: 'foo', caseInsensitive: null, maxLines: null, range: null },
      grepLike,
    );
    expect(withNulls).toEqual({ pattern: 'foo' });
    expect(withNulls).toEqual(parseToolArguments({ pattern: 'foo' }, grepLike));
  });

  test('a string "true" for a boolean is rejected, not dropped or coerced', () => {
    const error = refusal({ pattern: 'foo', caseInsensitive: 'true' });
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('"caseInsensitive"');
    expect(error.message).toContain('boolean');
    expect(error.message).toContain('a string ("true")');
  });

  test('a number where a path string is expected names argument, expected and received types', () => {
    const error = refusal({ pattern: 'x', path: 42 });
    expect(error.message).toBe('Argument "path" must be a string; received the number 42.');
  });

  test('unknown argument names are rejected and the accepted ones listed', () => {
    const error = refusal({ pattern: 'x', recursive: true });
    expect(error.message).toContain('Unknown argument "recursive"');
    expect(error.message).toContain('caseInsensitive');
  });

  test('missing required argument', () => {
    expect(refusal({}).message).toBe('Missing required argument "pattern" (a string).');
  });

  test('a required argument sent as null is missing', () => {
    expect(refusal({ pattern: null }).message).toContain('Missing required argument "pattern"');
  });

  test('an empty string where minLength is 1 is rejected', () => {
    expect(refusal({ pattern: '' }).message).toBe('Argument "pattern" must not be empty.');
  });

  test('length limits dropped by the strict dialect are enforced here', () => {
    expect(refusal({ pattern: 'x'.repeat(21) }).message).toContain('at most 20 characters');
  });

  test('integer bounds and fractions', () => {
    expect(refusal({ pattern: 'x', maxLines: 0 }).message).toContain('at least 1');
    expect(refusal({ pattern: 'x', maxLines: 5001 }).message).toContain('at most 5000');
    expect(refusal({ pattern: 'x', maxLines: 2.5 }).message).toContain('whole number');
    expect(refusal({ pattern: 'x', maxLines: '10' }).message).toContain('a string ("10")');
  });

  test('enum values', () => {
    expect(refusal({ pattern: 'x', view: 'binary' }).message).toContain(
      'one of "text", "hex", "base64"',
    );
  });

  test('arrays: item types and size', () => {
    expect(refusal({ pattern: 'x', tags: ['a', 1] }).message).toContain('"tags[1]"');
    expect(refusal({ pattern: 'x', tags: ['a', 'b', 'c'] }).message).toContain('at most 2 items');
  });

  test('nested objects: unknown keys, required keys and types are checked with a dotted path', () => {
    expect(refusal({ pattern: 'x', range: { from: 1, step: 2 } }).message).toContain(
      '"range.step"',
    );
    expect(refusal({ pattern: 'x', range: { to: 2 } }).message).toContain('"range.from"');
    expect(refusal({ pattern: 'x', range: { from: 'a' } }).message).toContain('"range.from"');
  });

  test('arguments that are not an object are rejected; undefined reads as {}', () => {
    expect(refusal('{"pattern":"x"}').message).toContain('must be a JSON object');
    expect(refusal([1]).message).toContain('must be a JSON object');
    expect(parseToolArguments(undefined, { type: 'object', properties: {} })).toEqual({});
  });

  test('a schema that admits null keeps the null', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { value: { type: ['string', 'null'] } },
      additionalProperties: false,
    };
    expect(parseToolArguments({ value: null }, schema)).toEqual({ value: null });
  });

  test('requireNonBlank refuses whitespace-only values', () => {
    expect(() => requireNonBlank('   ', 'path')).toThrow('Argument "path" must not be blank.');
    expect(requireNonBlank(' a ', 'path')).toBe(' a ');
  });
});
