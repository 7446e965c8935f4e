/**
 * The tool mapper (SPEC §9): internal `ToolDefinition`s to each provider's wire
 * format. Source schemas are plain JSON Schema; the OpenAI Responses strict
 * dialect and Gemini's schema subset are derived here, at the boundary, and
 * nowhere else. Nothing in this module throws on a schema it did not expect:
 * MCP schemas nobody here wrote fall back to `strict: false` or are trimmed.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { FunctionTool } from 'openai/resources/responses/responses';
import type { JsonSchema, JsonSchemaType, ToolDefinition } from '../tools/types';

type SchemaRecord = Record<string, unknown>;

function isRecord(value: unknown): value is SchemaRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeList(schema: SchemaRecord): string[] | undefined {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type))
    return schema.type.filter((item): item is string => typeof item === 'string');
  return undefined;
}

function isObjectSchema(schema: SchemaRecord): boolean {
  return typeList(schema)?.includes('object') === true || isRecord(schema.properties);
}

/** A root schema every provider accepts: an object, even when the source omitted `type`. */
function rootObjectSchema(parameters: unknown): JsonSchema {
  if (!isRecord(parameters)) return { type: 'object', properties: {} };
  return { ...parameters, type: 'object' } as JsonSchema;
}

// ---- OpenAI strict dialect ----

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
  if (!isRecord(schema)) return schema;
  const result: SchemaRecord = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (STRICT_DROPPED_KEYWORDS.has(keyword)) continue;
    if (keyword === 'properties' && isRecord(value)) continue;
    if (
      (keyword === 'items' || keyword === 'additionalProperties' || keyword === 'not') &&
      isRecord(value)
    ) {
      result[keyword] = strictify(value);
    } else if (
      (keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf') &&
      Array.isArray(value)
    ) {
      result[keyword] = value.map(strictify);
    } else if ((keyword === '$defs' || keyword === 'definitions') && isRecord(value)) {
      result[keyword] = Object.fromEntries(
        Object.entries(value).map(([name, item]) => [name, strictify(item)]),
      );
    } else {
      result[keyword] = value;
    }
  }
  if (isObjectSchema(schema)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const strictProperties: SchemaRecord = {};
    for (const [name, property] of Object.entries(properties)) {
      const converted = strictify(property);
      strictProperties[name] =
        required.has(name) || !isRecord(converted) ? converted : makeNullable(converted);
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
  if (!isRecord(schema)) {
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
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const [name, property] of Object.entries(properties)) {
      if (!required.includes(name)) problems.push(`${where}.${name} is not required`);
      // Keys of `properties` are argument names, never keywords: recurse into each value.
      strictProblems(property, `${where}.${name}`, problems);
    }
  }
  if (schema.items !== undefined) strictProblems(schema.items, `${where}[]`, problems);
  if (isRecord(schema.additionalProperties))
    problems.push(`${where} has an "additionalProperties" schema`);
}

/** Why a schema does not meet OpenAI strict mode (empty when it does). */
export function strictCompatibilityProblems(schema: JsonSchema): string[] {
  const problems: string[] = [];
  if (
    !isRecord(schema) ||
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

export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  /** Absent for a tool without arguments: Gemini rejects an object schema with no properties. */
  parameters?: GeminiSchema;
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
  const target = isRecord(table)
    ? table[
        decodeURIComponent(match[2] as string)
          .replaceAll('~1', '/')
          .replaceAll('~0', '~')
      ]
    : undefined;
  return isRecord(target) ? target : undefined;
}

function toGemini(schema: unknown, root: SchemaRecord, depth: number): GeminiSchema {
  if (!isRecord(schema)) return {};
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
  )?.filter(isRecord);
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
    const properties: SchemaRecord = isRecord(merged.properties) ? { ...merged.properties } : {};
    const required: unknown[] = Array.isArray(merged.required) ? [...merged.required] : [];
    for (const part of schema.allOf.filter(isRecord)) {
      Object.assign(merged, part);
      if (isRecord(part.properties)) Object.assign(properties, part.properties);
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
    const properties = isRecord(schema.properties) ? schema.properties : {};
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
