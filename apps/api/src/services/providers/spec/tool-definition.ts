/**
 * A tool as the model sees it (docs/tool-system.md#core-types, docs/tool-system.md#the-tool-mapper): its name, what it does, and its
 * arguments as plain JSON Schema. The one definition type: the tool layer
 * produces these and every adapter derives its provider's dialect from them.
 * Types only.
 */

export type JsonSchemaType =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'object'
  | 'array'
  | 'null';

/** Plain JSON Schema, as tool authors write it (docs/tool-system.md#tool-arguments). Unknown keywords are kept. */
export interface JsonSchema {
  type?: JsonSchemaType | JsonSchemaType[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  [keyword: string]: unknown;
}

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}
