import { type Static, Type } from '@sinclair/typebox';

/** Settings → MCP (docs/mcp.md): a user's MCP servers, their state, import and test. */

export const McpServerType = Type.Union([Type.Literal('stdio'), Type.Literal('http')], {
  description:
    'stdio: a command this server starts (admins, or commands in MANGO_MCP_STDIO_ALLOW); http: a remote server (Streamable HTTP, falling back to SSE).',
});
export type McpServerType = Static<typeof McpServerType>;

export const McpServerStatus = Type.Union(
  [
    Type.Literal('idle'),
    Type.Literal('connecting'),
    Type.Literal('ready'),
    Type.Literal('error'),
    Type.Literal('disabled'),
  ],
  {
    description:
      "This instance's connection for the user: idle (not connected yet, or closed after idle time), connecting, ready, error (see lastError; the next use reconnects), disabled.",
  },
);
export type McpServerStatus = Static<typeof McpServerStatus>;

const Slug = Type.String({
  minLength: 1,
  maxLength: 40,
  pattern: '^[a-z0-9_-]+$',
  description:
    'Unique per user, fixed once created: tool names (mcp__<slug>__<tool>) and tool settings are keyed by it. Defaults from the name.',
});
const nameValueMap = (description: string) =>
  Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ maxLength: 8000 }), {
    maxProperties: 100,
    description,
  });
const StringList = Type.Array(Type.String({ maxLength: 4000 }), { maxItems: 200 });

const serverFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: McpServerType,
  enabled: Type.Boolean({ description: 'Default true. A disabled server is never started.' }),
  command: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: 'stdio: the program, run without a shell.',
  }),
  args: StringList,
  env: nameValueMap(
    'stdio: the only variables the program gets besides PATH and HOME. Write-only: answers show the names with masked values.',
  ),
  cwd: Type.String({ minLength: 1, maxLength: 4000 }),
  url: Type.String({ minLength: 1, maxLength: 4000, description: 'http: an http(s) URL.' }),
  headers: nameValueMap('http: sent with every request. Write-only: answers mask the values.'),
  shared: Type.Boolean({
    description:
      'Admins only: every user gets the server (read-only to them), each with their own connection.',
  }),
  callTimeoutSeconds: Type.Integer({
    minimum: 1,
    maximum: 3600,
    description: 'How long one tool call may take (default MANGO_MCP_CALL_TIMEOUT_SECONDS, 60).',
  }),
};

export const CreateMcpServerBody = Type.Object(
  {
    name: serverFields.name,
    slug: Type.Optional(Slug),
    type: serverFields.type,
    enabled: Type.Optional(serverFields.enabled),
    command: Type.Optional(serverFields.command),
    args: Type.Optional(serverFields.args),
    env: Type.Optional(serverFields.env),
    cwd: Type.Optional(serverFields.cwd),
    url: Type.Optional(serverFields.url),
    headers: Type.Optional(serverFields.headers),
    shared: Type.Optional(serverFields.shared),
    callTimeoutSeconds: Type.Optional(serverFields.callTimeoutSeconds),
  },
  { additionalProperties: false, $id: 'CreateMcpServerBody' },
);
export type CreateMcpServerBody = Static<typeof CreateMcpServerBody>;

/** A partial change; the slug and the type are fixed. `null` clears an optional field. */
export const UpdateMcpServerBody = Type.Object(
  {
    name: Type.Optional(serverFields.name),
    enabled: Type.Optional(serverFields.enabled),
    command: Type.Optional(serverFields.command),
    args: Type.Optional(serverFields.args),
    env: Type.Optional(serverFields.env),
    cwd: Type.Optional(Type.Union([serverFields.cwd, Type.Null()])),
    url: Type.Optional(serverFields.url),
    headers: Type.Optional(serverFields.headers),
    shared: Type.Optional(serverFields.shared),
    callTimeoutSeconds: Type.Optional(Type.Union([serverFields.callTimeoutSeconds, Type.Null()])),
  },
  { additionalProperties: false, $id: 'UpdateMcpServerBody' },
);
export type UpdateMcpServerBody = Static<typeof UpdateMcpServerBody>;

export const McpServerError = Type.Object({
  code: Type.String(),
  message: Type.String(),
  /** The last lines the server wrote to stderr (stdio), secrets of its env masked. */
  stderrTail: Type.Optional(Type.String()),
  at: Type.String({ format: 'date-time' }),
});
export type McpServerError = Static<typeof McpServerError>;

export const McpServer = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    type: McpServerType,
    enabled: Type.Boolean(),
    command: Type.Union([Type.String(), Type.Null()]),
    args: Type.Array(Type.String()),
    /** Variable names with masked values. */
    env: Type.Record(Type.String(), Type.String()),
    cwd: Type.Union([Type.String(), Type.Null()]),
    url: Type.Union([Type.String(), Type.Null()]),
    /** Header names with masked values. */
    headers: Type.Record(Type.String(), Type.String()),
    shared: Type.Boolean(),
    /** False for a shared server of another user's: it is read-only to this one. */
    editable: Type.Boolean(),
    callTimeoutSeconds: Type.Union([Type.Integer(), Type.Null()]),
    status: McpServerStatus,
    lastError: Type.Union([McpServerError, Type.Null()]),
    /** How many tools its last listing had; null before it was ever listed. */
    toolCount: Type.Union([Type.Integer(), Type.Null()]),
    /** The names of those tools as the model sees them (mcp__<slug>__<tool>). */
    tools: Type.Array(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'McpServer' },
);
export type McpServer = Static<typeof McpServer>;

export const McpServerListResponse = Type.Object(
  { servers: Type.Array(McpServer) },
  { $id: 'McpServerListResponse' },
);
export type McpServerListResponse = Static<typeof McpServerListResponse>;

export const McpServerTestResult = Type.Union(
  [
    Type.Object({
      ok: Type.Literal(true),
      serverName: Type.String(),
      serverVersion: Type.String(),
      toolCount: Type.Integer(),
      durationMs: Type.Number(),
    }),
    Type.Object({
      ok: Type.Literal(false),
      error: McpServerError,
      durationMs: Type.Number(),
    }),
  ],
  { $id: 'McpServerTestResult' },
);
export type McpServerTestResult = Static<typeof McpServerTestResult>;

/** One entry of the `mcpServers` format other clients use (Claude Desktop, Cursor, VS Code). */
export const McpImportEntry = Type.Object(
  {
    type: Type.Optional(Type.String()),
    command: Type.Optional(Type.Unknown()),
    args: Type.Optional(Type.Unknown()),
    env: Type.Optional(Type.Unknown()),
    cwd: Type.Optional(Type.Unknown()),
    url: Type.Optional(Type.Unknown()),
    headers: Type.Optional(Type.Unknown()),
    disabled: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);

export const ImportMcpServersBody = Type.Object(
  {
    mcpServers: Type.Record(Type.String({ minLength: 1, maxLength: 100 }), McpImportEntry, {
      maxProperties: 100,
    }),
  },
  { additionalProperties: false, $id: 'ImportMcpServersBody' },
);
export type ImportMcpServersBody = Static<typeof ImportMcpServersBody>;

export const McpImportOutcome = Type.Union([
  Type.Object({ name: Type.String(), created: Type.Literal(true), server: McpServer }),
  Type.Object({
    name: Type.String(),
    created: Type.Literal(false),
    error: Type.Object({ code: Type.String(), message: Type.String() }),
  }),
]);
export type McpImportOutcome = Static<typeof McpImportOutcome>;

export const ImportMcpServersResponse = Type.Object(
  { results: Type.Array(McpImportOutcome) },
  { $id: 'ImportMcpServersResponse' },
);
export type ImportMcpServersResponse = Static<typeof ImportMcpServersResponse>;
