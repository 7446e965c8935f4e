/**
 * The OpenAI strict dialect (docs/tool-system.md#the-tool-mapper), derived from plain JSON Schema at the
 * Responses boundary only: what `strict: true` requires and why a schema does
 * not meet it. Nothing here throws on a schema it did not expect.
 */

import { isPlainObject } from '../../../is-plain-object';
import { isObjectSchema, type SchemaRecord, typeList } from '../shared/schema-shape';
import type { JsonSchema } from '../spec';

/** Keywords the strict dialect cannot express; a schema that still has one after the transform is not strict. */
const STRICT_FORBIDDEN_KEYWORDS = new Set([
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  '$ref',
  'minLength',
  'maxLength',
  'if',
  'then',
  'else',
  'patternProperties',
  'dependentRequired',
  'dependentSchemas',
  'default',
]);

/** Annotations and limits the strict dialect drops (the executor still enforces the limits). */
const STRICT_DROPPED_KEYWORDS = new Set([
  'minLength',
  'maxLength',
  'default',
  '$schema',
  'examples',
  '$id',
  '$comment',
]);

function makeNullable(schema: SchemaRecord): SchemaRecord {
  const types = typeList(schema);
  if (!types) return { anyOf: [schema, { type: 'null' }] };
  if (types.includes('null')) return schema;
  const nullable: SchemaRecord = { ...schema, type: [...types, 'null'] };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null))
    nullable.enum = [...schema.enum, null];
  return nullable;
}

function strictify(schema: unknown): unknown {
  if (!isPlainObject(schema)) return schema;
  const result: SchemaRecord = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (STRICT_DROPPED_KEYWORDS.has(keyword)) continue;
    if (keyword === 'properties' && isPlainObject(value)) continue;
    if (
      (keyword === 'items' || keyword === 'additionalProperties' || keyword === 'not') &&
      isPlainObject(value)
    ) {
      result[keyword] = strictify(value);
    } else if (
      (keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf') &&
      Array.isArray(value)
    ) {
      result[keyword] = value.map(strictify);
    } else if ((keyword === '$defs' || keyword === 'definitions') && isPlainObject(value)) {
      result[keyword] = Object.fromEntries(
        Object.entries(value).map(([name, item]) => [name, strictify(item)]),
      );
    } else {
      result[keyword] = value;
    }
  }
  if (isObjectSchema(schema)) {
    const properties = isPlainObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const strictProperties: SchemaRecord = {};
    for (const [name, property] of Object.entries(properties)) {
      const converted = strictify(property);
      strictProperties[name] =
        required.has(name) || !isPlainObject(converted) ? converted : makeNullable(converted);
    }
    result.properties = strictProperties;
    result.required = Object.keys(strictProperties);
    result.additionalProperties = false;
  }
  return result;
}

/**
 * Derives the OpenAI strict dialect from a plain JSON Schema: at every nesting
 * level every property goes into `required`, optional ones become nullable,
 * objects are closed and length limits are dropped. The source is not modified.
 */
export function toStrictSchema(schema: JsonSchema): JsonSchema {
  return strictify(schema) as JsonSchema;
}

function strictProblems(schema: unknown, where: string, problems: string[]): void {
  if (!isPlainObject(schema)) {
    if (schema !== true) problems.push(`${where} is not a schema object`);
    return;
  }
  for (const keyword of Object.keys(schema)) {
    if (STRICT_FORBIDDEN_KEYWORDS.has(keyword)) problems.push(`${where} uses "${keyword}"`);
  }
  if (isObjectSchema(schema)) {
    if (!typeList(schema)?.includes('object'))
      problems.push(`${where} has properties but no "type": "object"`);
    if (schema.additionalProperties !== false)
      problems.push(`${where} does not set "additionalProperties": false`);
    const properties = isPlainObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const [name, property] of Object.entries(properties)) {
      if (!required.includes(name)) problems.push(`${where}.${name} is not required`);
      // Keys of `properties` are argument names, never keywords: recurse into each value.
      strictProblems(property, `${where}.${name}`, problems);
    }
  }
  if (schema.items !== undefined) strictProblems(schema.items, `${where}[]`, problems);
  if (isPlainObject(schema.additionalProperties))
    problems.push(`${where} has an "additionalProperties" schema`);
}

/** Why a schema does not meet OpenAI strict mode (empty when it does). */
export function strictCompatibilityProblems(schema: JsonSchema): string[] {
  const problems: string[] = [];
  if (
    !isPlainObject(schema) ||
    !typeList(schema)?.includes('object') ||
    typeList(schema)?.length !== 1
  ) {
    problems.push('the root is not "type": "object"');
  }
  strictProblems(schema, '$', problems);
  return problems;
}

/**
 * Whether a schema meets OpenAI strict mode: an object root, every object
 * closed with every property required, and none of oneOf/anyOf/allOf/not/$ref/
 * minLength/maxLength (nor default or conditional keywords) anywhere.
 */
export function isStrictCompatible(schema: JsonSchema): boolean {
  return strictCompatibilityProblems(schema).length === 0;
}
