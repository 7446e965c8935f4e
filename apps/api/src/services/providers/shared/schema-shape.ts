/**
 * Reading JSON Schemas whose shape nobody promised (docs/tool-system.md#the-tool-mapper): the built-ins'
 * and, later, MCP servers'. Shared by the tool mapper and the dialects it
 * derives (OpenAI's strict schema, Gemini's subset).
 */

import { isPlainObject } from '../../../is-plain-object';

export type SchemaRecord = Record<string, unknown>;

/** The schema's `type` as a list (a single type or a type array), or undefined without one. */
export function typeList(schema: SchemaRecord): string[] | undefined {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type))
    return schema.type.filter((item): item is string => typeof item === 'string');
  return undefined;
}

export function isObjectSchema(schema: SchemaRecord): boolean {
  return typeList(schema)?.includes('object') === true || isPlainObject(schema.properties);
}
