import { type Static, Type } from '@sinclair/typebox';

/** The capabilities inspector (docs/http-api.md#the-capabilities-inspector): what a chat's next turn would offer its model. */

export const CapabilityToolState = Type.Union(
  [Type.Literal('enabled'), Type.Literal('disabled'), Type.Literal('unavailable')],
  {
    description:
      'enabled: offered to the model; disabled: switched off in the settings; unavailable: its source cannot serve it now.',
  },
);
export type CapabilityToolState = Static<typeof CapabilityToolState>;

export const CapabilityTool = Type.Object({
  name: Type.String(),
  title: Type.String(),
  category: Type.String(),
  source: Type.Union([Type.Literal('builtin'), Type.Literal('server')]),
  /** The MCP server's id, for tools of a server. */
  server: Type.Optional(Type.String()),
  state: CapabilityToolState,
  /** Why the tool is not enabled. */
  reason: Type.Optional(Type.String()),
});
export type CapabilityTool = Static<typeof CapabilityTool>;

export const CapabilityServer = Type.Object({
  /** The tool source's id: `mcp:<server id>` for an MCP server. */
  id: Type.String(),
  name: Type.String(),
  /** An MCP server's connection: idle, connecting, ready, error or disabled. */
  state: Type.String(),
  /** ok, or what is wrong: error, disabled, source_timed_out (missed the turn's budget), source_failed. */
  health: Type.String(),
  reason: Type.Optional(Type.String()),
  /** Tools this listing got from it (its last known count when it was not reached). */
  toolCount: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  lastError: Type.Optional(
    Type.Object({
      code: Type.String(),
      message: Type.String(),
      stderrTail: Type.Optional(Type.String()),
      at: Type.String(),
    }),
  ),
});
export type CapabilityServer = Static<typeof CapabilityServer>;

export const CapabilitiesWire = Type.Object({
  /** The model the payload was built for (`provider:modelId`). */
  model: Type.String(),
  /** The tool fields of the provider's request, in its own format (e.g. `tools` and `tool_choice`). */
  payload: Type.Record(Type.String(), Type.Unknown()),
});
export type CapabilitiesWire = Static<typeof CapabilitiesWire>;

export const ChatCapabilities = Type.Object(
  {
    chatId: Type.String(),
    /** The chat's model, or null when it has none yet. */
    model: Type.Union([Type.String(), Type.Null()]),
    tools: Type.Array(CapabilityTool),
    servers: Type.Array(CapabilityServer),
    wire: Type.Optional(CapabilitiesWire),
  },
  { $id: 'ChatCapabilities' },
);
export type ChatCapabilities = Static<typeof ChatCapabilities>;

export const ChatCapabilitiesQuery = Type.Object(
  {
    include: Type.Optional(
      Type.Literal('wire', {
        description: "Also return the exact tool payload the chat's provider would receive.",
      }),
    ),
    model: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 300,
        description: "With include=wire: the model to build it for instead of the chat's.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ChatCapabilitiesQuery = Static<typeof ChatCapabilitiesQuery>;
