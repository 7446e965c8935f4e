/**
 * Reading JSON Schemas whose shape nobody promised (SPEC §9): the built-ins'
 * and, later, MCP servers'. Shared by the tool mapper and the dialects it
 * derives (OpenAI's strict schema, Gemini's subset).
 */

export type SchemaRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is SchemaRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema's `type` as a list (a single type or a type array), or undefined without one. */
export function typeList(schema: SchemaRecord): string[] | undefined {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type))
    return schema.type.filter((item): item is string => typeof item === 'string');
  return undefined;
}

export function isObjectSchema(schema: SchemaRecord): boolean {
  return typeList(schema)?.includes('object') === true || isRecord(schema.properties);
}
