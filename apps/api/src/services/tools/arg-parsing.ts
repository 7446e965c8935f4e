/**
 * Tool-call argument parsing (docs/tool-system.md#tool-arguments). A tool's own source schema is the
 * contract: `parseToolArguments` checks a call's arguments against it and
 * returns them with `null`s removed, so a model that sends `null` (OpenAI
 * strict) and one that omits the key take the same path. Nothing is ever
 * substituted for a malformed value: a present value of the wrong type, an
 * unknown name or a missing required argument is a `ToolArgumentError`
 * (`validation_failed`) that names the argument, what was expected and what was
 * received. Length limits dropped by the strict dialect are enforced here.
 */

import { isPlainObject } from '../../is-plain-object';
import { ToolArgumentError } from './errors';
import { describeValue } from './settings-policy';
import type { JsonSchema, JsonSchemaType } from './types';

function typesOf(schema: JsonSchema): JsonSchemaType[] | undefined {
  if (schema.type === undefined) return undefined;
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

function matchesType(value: unknown, type: JsonSchemaType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isPlainObject(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
  }
}

const TYPE_WORDS: Record<JsonSchemaType, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'a boolean (true or false, without quotes)',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function label(path: string): string {
  return `Argument "${path}"`;
}

function fail(path: string, expected: string, value: unknown): never {
  throw new ToolArgumentError(
    `${label(path)} must be ${expected}; received ${describeValue(value)}.`,
    {
      details: { argument: path },
    },
  );
}

function sameValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left === 'object' && left !== null && typeof right === 'object' && right !== null) {
    return JSON.stringify(left) === JSON.stringify(right);
  }
  return false;
}

function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function checkString(path: string, value: string, schema: JsonSchema): void {
  if (schema.minLength !== undefined && codePointLength(value) < schema.minLength) {
    if (schema.minLength === 1) {
      throw new ToolArgumentError(`${label(path)} must not be empty.`, {
        details: { argument: path },
      });
    }
    fail(path, `at least ${schema.minLength} characters long`, value);
  }
  if (schema.maxLength !== undefined && codePointLength(value) > schema.maxLength) {
    throw new ToolArgumentError(
      `${label(path)} must be at most ${schema.maxLength} characters long; received ${codePointLength(value)} characters.`,
      { details: { argument: path } },
    );
  }
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) {
    fail(path, `a string matching /${schema.pattern}/`, value);
  }
}

function checkNumber(path: string, value: number, schema: JsonSchema): void {
  const kind = typesOf(schema)?.includes('integer') ? 'a whole number' : 'a number';
  if (schema.minimum !== undefined && value < schema.minimum)
    fail(path, `${kind} of at least ${schema.minimum}`, value);
  if (schema.maximum !== undefined && value > schema.maximum)
    fail(path, `${kind} of at most ${schema.maximum}`, value);
  const exclusiveMinimum = schema.exclusiveMinimum;
  if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum) {
    fail(path, `${kind} greater than ${exclusiveMinimum}`, value);
  }
  const exclusiveMaximum = schema.exclusiveMaximum;
  if (typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum) {
    fail(path, `${kind} less than ${exclusiveMaximum}`, value);
  }
}

function checkArray(path: string, value: unknown[], schema: JsonSchema): unknown[] {
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    fail(path, `an array of at least ${schema.minItems} items`, value);
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    fail(path, `an array of at most ${schema.maxItems} items`, value);
  }
  const itemSchema = schema.items;
  if (!itemSchema) return [...value];
  return value.map((item, index) => checkValue(`${path}[${index}]`, item, itemSchema));
}

function checkObject(
  path: string | undefined,
  value: Record<string, unknown>,
  schema: JsonSchema,
): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const result: Record<string, unknown> = {};
  const prefix = path === undefined ? '' : `${path}.`;
  for (const [key, item] of Object.entries(value)) {
    const propertySchema = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (!propertySchema) {
      const extra = schema.additionalProperties;
      if (
        extra === true ||
        isPlainObject(extra) ||
        (extra === undefined && schema.properties === undefined)
      ) {
        if (item !== null)
          result[key] = isPlainObject(extra) ? checkValue(`${prefix}${key}`, item, extra) : item;
        continue;
      }
      const known = Object.keys(properties);
      throw new ToolArgumentError(
        `Unknown argument "${prefix}${key}". ${known.length > 0 ? `Accepted arguments${path === undefined ? '' : ` of "${path}"`}: ${known.join(', ')}.` : 'No arguments are accepted here.'}`,
        { details: { argument: `${prefix}${key}` } },
      );
    }
    // null means "absent", unless the schema itself admits null.
    if (item === null && !typesOf(propertySchema)?.includes('null')) continue;
    result[key] = checkValue(`${prefix}${key}`, item, propertySchema);
  }
  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(result, key)) {
      const expected = properties[key] ? describeSchema(properties[key]) : 'a value';
      throw new ToolArgumentError(`Missing required argument "${prefix}${key}" (${expected}).`, {
        details: { argument: `${prefix}${key}` },
      });
    }
  }
  return result;
}

function describeSchema(schema: JsonSchema): string {
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((item) => JSON.stringify(item)).join(', ')}`;
  const types = typesOf(schema);
  if (!types) return 'a value';
  return types.map((type) => TYPE_WORDS[type]).join(' or ');
}

function checkValue(path: string, value: unknown, schema: JsonSchema): unknown {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    let lastError: unknown;
    for (const alternative of alternatives) {
      try {
        return checkValue(path, value, alternative);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }
  const types = typesOf(schema);
  if (types && !types.some((type) => matchesType(value, type)))
    fail(path, describeSchema(schema), value);
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => sameValue(option, value))) {
    fail(path, describeSchema({ enum: schema.enum }), value);
  }
  if (schema.const !== undefined && !sameValue(schema.const, value)) {
    fail(path, `exactly ${JSON.stringify(schema.const)}`, value);
  }
  if (typeof value === 'string') checkString(path, value, schema);
  if (typeof value === 'number') checkNumber(path, value, schema);
  if (Array.isArray(value)) return checkArray(path, value, schema);
  if (isPlainObject(value) && (schema.properties !== undefined || types?.includes('object'))) {
    return checkObject(path, value, schema);
  }
  return value;
}

/**
 * Checks a call's arguments against the tool's source schema and returns them
 * with absent (`null`) values removed. `undefined` arguments read as `{}`.
 */
export function parseToolArguments<T extends Record<string, unknown> = Record<string, unknown>>(
  args: unknown,
  schema: JsonSchema,
): T {
  if (args === undefined || args === null) return checkObject(undefined, {}, schema) as T;
  if (!isPlainObject(args)) {
    throw new ToolArgumentError(
      `Tool arguments must be a JSON object of argument names to values; received ${describeValue(args)}.`,
    );
  }
  return checkObject(undefined, args, schema) as T;
}

/** For checks a schema cannot express (e.g. a path of only spaces). */
export function requireNonBlank(value: string, name: string): string {
  if (value.trim() === '') {
    throw new ToolArgumentError(`${label(name)} must not be blank.`, {
      details: { argument: name },
    });
  }
  return value;
}
