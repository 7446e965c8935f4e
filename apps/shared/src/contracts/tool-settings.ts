/**
 * The settings API's contracts (docs/http-api.md#tool-settings): what `GET /api/settings/tools` returns
 * and what `PUT /api/settings/tools/:toolName` accepts. The tool layer's
 * descriptor types are derived from these schemas too, so a settings form and
 * the validation behind it read the same shape.
 */
import { type Static, Type } from '@sinclair/typebox';

export const ToolCategory = Type.Union(
  [Type.Literal('system'), Type.Literal('image'), Type.Literal('interaction')],
  { $id: 'ToolCategory' },
);
export type ToolCategory = Static<typeof ToolCategory>;

export const ToolParameterType = Type.Union(
  [
    Type.Literal('string'),
    Type.Literal('number'),
    Type.Literal('boolean'),
    Type.Literal('select'),
    Type.Literal('string_list'),
    Type.Literal('path_list'),
  ],
  { $id: 'ToolParameterType' },
);
export type ToolParameterType = Static<typeof ToolParameterType>;

export const ToolParameterOption = Type.Object(
  { value: Type.String(), label: Type.String() },
  { $id: 'ToolParameterOption' },
);
export type ToolParameterOption = Static<typeof ToolParameterOption>;

/** One tool setting: a form field is drawn from it and values are validated by it. */
export const ToolParameterDescriptor = Type.Object(
  {
    name: Type.String(),
    label: Type.String(),
    description: Type.String(),
    type: ToolParameterType,
    defaultValue: Type.Unknown(),
    min: Type.Optional(Type.Number({ description: 'Numbers only: inclusive lower bound.' })),
    max: Type.Optional(Type.Number({ description: 'Numbers only: inclusive upper bound.' })),
    integer: Type.Optional(Type.Boolean({ description: 'Numbers only: whole numbers required.' })),
    options: Type.Optional(
      Type.Array(ToolParameterOption, { description: 'Selects only: the allowed values.' }),
    ),
  },
  { $id: 'ToolParameterDescriptor' },
);
export type ToolParameterDescriptor = Static<typeof ToolParameterDescriptor>;

/** A registered tool with the current user's effective settings. */
export const ToolSettingsDescriptor = Type.Object(
  {
    name: Type.String({ description: 'The tool name models call.' }),
    title: Type.String(),
    description: Type.String(),
    category: ToolCategory,
    enabledByDefault: Type.Boolean(),
    canDisable: Type.Boolean(),
    enabled: Type.Boolean({ description: "The user's effective on/off state." }),
    parameters: Type.Record(Type.String(), Type.Unknown(), {
      description: "The user's effective settings: defaults, then what the user saved.",
    }),
    defaultParameters: Type.Record(Type.String(), Type.Unknown()),
    parameterDescriptors: Type.Array(ToolParameterDescriptor),
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the user last changed this tool, or null if never.',
    }),
    source: Type.Union([Type.Literal('builtin'), Type.Literal('server')], {
      description: 'builtin: one of the server’s own tools; server: a tool of an MCP server.',
    }),
    server: Type.Optional(
      Type.Object(
        { id: Type.String(), name: Type.String() },
        { description: 'For a tool of an MCP server: the server (GET /api/mcp/servers/:id).' },
      ),
    ),
    unavailableReason: Type.Optional(
      Type.String({
        description:
          'Present when the tool cannot be offered to this user now, whatever its switch says, and why.',
      }),
    ),
  },
  { $id: 'ToolSettingsDescriptor' },
);
export type ToolSettingsDescriptor = Static<typeof ToolSettingsDescriptor>;

export const ToolSettingsListResponse = Type.Object(
  { tools: Type.Array(ToolSettingsDescriptor) },
  { $id: 'ToolSettingsListResponse' },
);
export type ToolSettingsListResponse = Static<typeof ToolSettingsListResponse>;

export const ToolNameParams = Type.Object({
  toolName: Type.String({ description: 'A registered tool name, e.g. get_current_datetime.' }),
});
export type ToolNameParams = Static<typeof ToolNameParams>;

/** A change to one tool's settings; the given parameters are merged over what is saved. */
export const UpdateToolSettingsBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    parameters: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: "Setting name to value; each is checked against the tool's descriptors.",
      }),
    ),
  },
  { additionalProperties: false, $id: 'UpdateToolSettingsBody' },
);
export type UpdateToolSettingsBody = Static<typeof UpdateToolSettingsBody>;

/**
 * 422: a setting was refused (unknown name, wrong type, out of range, or
 * disabling a tool that cannot be). An `ErrorResponse` whose code is
 * `invalid_tool_settings`; `toolName` and `key` are also given beside the code
 * (as the first version of the API answered them) and in `details`.
 */
export const ToolSettingsError = Type.Object(
  {
    error: Type.Object({
      code: Type.Literal('invalid_tool_settings'),
      message: Type.String({ description: 'Which setting, what was expected, what was given.' }),
      retryable: Type.Literal(false),
      toolName: Type.String(),
      key: Type.String({ description: 'The refused setting; `enabled` for the on/off switch.' }),
      details: Type.Object({ toolName: Type.String(), key: Type.String() }),
    }),
  },
  { $id: 'ToolSettingsError' },
);
export type ToolSettingsError = Static<typeof ToolSettingsError>;
