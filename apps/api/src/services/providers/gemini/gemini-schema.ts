/**
 * The JSON Schema subset Gemini's function declarations accept (docs/tool-system.md#the-tool-mapper):
 * references inlined, unions and nullability rewritten, unknown keywords
 * dropped. Nothing here throws on a schema it did not expect.
 */

import { isPlainObject } from '../../../is-plain-object';
import { isObjectSchema, type SchemaRecord, typeList } from '../shared/schema-shape';
import type { JsonSchema, JsonSchemaType } from '../spec';

/** The JSON Schema subset Gemini's function declarations accept. */
export interface GeminiSchema {
  type?: Exclude<JsonSchemaType, 'null'>;
  nullable?: boolean;
  description?: string;
  title?: string;
  enum?: string[];
  format?: string;
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  propertyOrdering?: string[];
  items?: GeminiSchema;
  anyOf?: GeminiSchema[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minProperties?: number;
  maxProperties?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: unknown;
  example?: unknown;
}

const GEMINI_COPIED_KEYWORDS = [
  'description',
  'title',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
  'minimum',
  'maximum',
  'pattern',
  'default',
  'example',
] as const;

/** Gemini's Developer API only knows these string formats. */
const GEMINI_STRING_FORMATS = new Set(['enum', 'date-time']);
const MAX_REF_DEPTH = 8;

function resolveLocalRef(ref: string, root: SchemaRecord): SchemaRecord | undefined {
  const match = ref.match(/^#\/(\$defs|definitions)\/(.+)$/);
  if (ref === '#') return root;
  if (!match) return undefined;
  const table = root[match[1] as string];
  const target = isPlainObject(table)
    ? table[
        decodeURIComponent(match[2] as string)
          .replaceAll('~1', '/')
          .replaceAll('~0', '~')
      ]
    : undefined;
  return isPlainObject(target) ? target : undefined;
}

function toGemini(schema: unknown, root: SchemaRecord, depth: number): GeminiSchema {
  if (!isPlainObject(schema)) return {};
  if (typeof schema.$ref === 'string') {
    const target = resolveLocalRef(schema.$ref, root);
    // Gemini has no references: inline them, and cut recursion to a plain object.
    if (!target || depth >= MAX_REF_DEPTH)
      return { type: 'object', description: stringOr(schema.description) };
    return toGemini({ ...target, ...withoutKey(schema, '$ref') }, root, depth + 1);
  }
  const result: GeminiSchema = {};
  const types = typeList(schema) ?? [];
  const nonNull = types.filter((type) => type !== 'null') as Exclude<JsonSchemaType, 'null'>[];
  const nullable = types.includes('null') || schema.nullable === true;

  const alternatives = (
    Array.isArray(schema.anyOf)
      ? schema.anyOf
      : Array.isArray(schema.oneOf)
        ? schema.oneOf
        : undefined
  )?.filter(isPlainObject);
  if (alternatives && alternatives.length > 0) {
    const nonNullAlternatives = alternatives.filter((item) => !(item.type === 'null'));
    const nullableUnion = nonNullAlternatives.length < alternatives.length;
    if (nonNullAlternatives.length === 1) {
      const single = toGemini(
        { ...withoutKey(withoutKey(schema, 'anyOf'), 'oneOf'), ...nonNullAlternatives[0] },
        root,
        depth,
      );
      return nullableUnion || nullable ? { ...single, nullable: true } : single;
    }
    result.anyOf = nonNullAlternatives.map((item) => toGemini(item, root, depth));
    if (nullableUnion || nullable) result.nullable = true;
  } else if (nonNull.length > 1) {
    result.anyOf = nonNull.map((type) => toGemini({ ...schema, type }, root, depth));
    if (nullable) result.nullable = true;
    if (typeof schema.description === 'string') result.description = schema.description;
    return result;
  }

  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    // Merge conjunctions of object schemas into one; Gemini has no allOf.
    const merged: SchemaRecord = withoutKey(schema, 'allOf');
    const properties: SchemaRecord = isPlainObject(merged.properties)
      ? { ...merged.properties }
      : {};
    const required: unknown[] = Array.isArray(merged.required) ? [...merged.required] : [];
    for (const part of schema.allOf.filter(isPlainObject)) {
      Object.assign(merged, part);
      if (isPlainObject(part.properties)) Object.assign(properties, part.properties);
      if (Array.isArray(part.required)) required.push(...part.required);
    }
    merged.properties = properties;
    merged.required = required;
    return toGemini(merged, root, depth);
  }

  if (nonNull.length === 1) result.type = nonNull[0];
  if (nullable) result.nullable = true;
  for (const keyword of GEMINI_COPIED_KEYWORDS) {
    if (schema[keyword] !== undefined) (result as SchemaRecord)[keyword] = schema[keyword];
  }

  const enumValues = Array.isArray(schema.enum)
    ? schema.enum
    : schema.const !== undefined
      ? [schema.const]
      : undefined;
  if (enumValues) {
    const values = enumValues.filter((value) => value !== null);
    // A null option becomes `nullable`: Gemini's enums hold strings only.
    if (values.length !== enumValues.length) result.nullable = true;
    result.enum = values.map((value) =>
      typeof value === 'string' ? value : JSON.stringify(value),
    );
    // Gemini's enums are strings only.
    result.type = 'string';
  }

  if (
    typeof schema.format === 'string' &&
    result.type === 'string' &&
    GEMINI_STRING_FORMATS.has(schema.format)
  ) {
    result.format = schema.format;
  }

  if (isObjectSchema(schema)) {
    result.type = 'object';
    const properties = isPlainObject(schema.properties) ? schema.properties : {};
    const converted: Record<string, GeminiSchema> = {};
    for (const [name, property] of Object.entries(properties))
      converted[name] = toGemini(property, root, depth);
    if (Object.keys(converted).length > 0) result.properties = converted;
    const required = (Array.isArray(schema.required) ? schema.required : []).filter(
      (name): name is string => typeof name === 'string' && Object.hasOwn(converted, name),
    );
    if (required.length > 0) result.required = [...new Set(required)];
  }
  if (schema.items !== undefined && (result.type === 'array' || result.type === undefined)) {
    result.type = 'array';
    result.items = Array.isArray(schema.items)
      ? toGemini(schema.items[0], root, depth)
      : toGemini(schema.items, root, depth);
  }
  return result;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function withoutKey(schema: SchemaRecord, key: string): SchemaRecord {
  const { [key]: _removed, ...rest } = schema;
  return rest;
}

/** Rewrites a JSON Schema into the subset Gemini accepts (see `GeminiSchema`). */
export function toGeminiSchema(schema: JsonSchema): GeminiSchema {
  return toGemini(schema, schema as SchemaRecord, 0);
}
