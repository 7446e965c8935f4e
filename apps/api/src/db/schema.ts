/**
 * The database's tables as Kysely sees them (docs/operations.md#the-database). One schema for both
 * dialects; where the two drivers hand back different JavaScript values for
 * the same column (SQLite has no boolean, timestamp or JSON type), the select
 * type names both and `db/values.ts` reads them into one shape.
 *
 * Column types per dialect (see `db/column-types.ts`):
 * - timestamps: `timestamptz` on PostgreSQL, ISO-8601 text (declared `date`) on SQLite;
 * - booleans: `boolean` on PostgreSQL, `integer` 0/1 on SQLite;
 * - JSON documents: `jsonb` on PostgreSQL, `text` on SQLite.
 */
import type { ColumnType } from 'kysely';

/** Read as a `Date` (PostgreSQL) or an ISO string (SQLite); written as an ISO string. */
export type Timestamp = ColumnType<Date | string, string, string>;
/** Read as a boolean (PostgreSQL) or 0/1 (SQLite); written as a boolean. */
export type BooleanColumn = ColumnType<boolean | number, boolean, boolean>;
/** Read parsed (PostgreSQL `jsonb`) or as text (SQLite); written as JSON text. */
export type JsonColumn = ColumnType<unknown, string, string>;

// ---- Accounts (better-auth's models, in this schema's snake_case names) ----

export interface UsersTable {
  id: string;
  name: string;
  email: string;
  email_verified: BooleanColumn;
  image: string | null;
  /** `admin` for the first account, `user` for the others. */
  role: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** When an admin disabled the account; null while it is enabled. */
  disabled_at: Timestamp | null;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  token: string;
  expires_at: Timestamp;
  ip_address: string | null;
  user_agent: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AccountsTable {
  id: string;
  user_id: string;
  account_id: string;
  provider_id: string;
  access_token: string | null;
  refresh_token: string | null;
  id_token: string | null;
  access_token_expires_at: Timestamp | null;
  refresh_token_expires_at: Timestamp | null;
  scope: string | null;
  /** The password hash for email + password accounts. */
  password: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface VerificationsTable {
  id: string;
  identifier: string;
  value: string;
  expires_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  config_id: string;
  name: string | null;
  start: string | null;
  /** The owning user's id. */
  reference_id: string;
  prefix: string | null;
  /** A hash of the key; the key itself is shown once, at creation. */
  key: string;
  refill_interval: number | null;
  refill_amount: number | null;
  last_refill_at: Timestamp | null;
  enabled: BooleanColumn | null;
  rate_limit_enabled: BooleanColumn | null;
  rate_limit_time_window: number | null;
  rate_limit_max: number | null;
  request_count: number | null;
  remaining: number | null;
  last_request: Timestamp | null;
  expires_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  permissions: string | null;
  metadata: string | null;
}

// ---- The application ----

/** One user's saved settings for one tool; unique per (user_id, tool_name). */
export interface UserToolSettingsTable {
  user_id: string;
  tool_name: string;
  /** Null when the user never switched the tool: its default applies. */
  enabled: BooleanColumn | null;
  /** The settings the user saved (a JSON object of setting name to value). */
  parameters: JsonColumn;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ChatsTable {
  id: string;
  /** The owner. */
  user_id: string;
  title: string;
  /** `chat` or `agent`. */
  mode: string;
  /** The bound working directory (absolute), if any. */
  working_directory: string | null;
  restrict_to_working_directory: BooleanColumn;
  /** `provider:modelId`, if chosen. */
  model: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MessagesTable {
  id: string;
  chat_id: string;
  /** `user`, `assistant` or `system`. */
  role: string;
  /** The message's parts (text, reasoning, tool calls and results, images). */
  parts: JsonColumn;
  /** An assistant message's model call: its token usage (null when none was reported). */
  usage: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The freshness ledger (docs/tools/filesystem.md#the-freshness-ledger): what each chat has read of each real path. */
export interface FileReadsTable {
  chat_id: string;
  real_path: string;
  sha256: string;
  size: number;
  mtime_ms: number;
  complete: BooleanColumn;
  lines_covered: number;
  total_lines: number;
  /** Text windows read beyond the covered prefix (JSON array of { startLine, endLine }), or null. */
  later_windows: JsonColumn | null;
  updated_at: Timestamp;
}

export interface McpServersTable {
  id: string;
  user_id: string;
  name: string;
  /** Unique per user, fixed at creation: tool names and settings are keyed by it. */
  slug: string;
  /** `stdio` or `http`. */
  transport: string;
  command: string | null;
  /** JSON array of strings. */
  args: JsonColumn;
  /** JSON object of variable name to value. */
  env: JsonColumn;
  cwd: string | null;
  url: string | null;
  /** JSON object of header name to value; write-only through the API. */
  headers: JsonColumn;
  enabled: BooleanColumn;
  /** Set by an admin: every user gets the server (read-only), each with their own connection. */
  shared: BooleanColumn;
  call_timeout_seconds: number | null;
  /** The last complete tool listing (JSON array of MCP tool objects), null before the first. */
  tool_listing: JsonColumn | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The images store (docs/images.md#the-images-store); a chat's images go with the chat. */
export interface GeneratedImagesTable {
  id: string;
  /** The owner: the only user `GET /api/images/:id` serves the image to. */
  user_id: string;
  chat_id: string | null;
  /** The tool call that produced it (its assistant message holds that `tool_call` part). */
  tool_call_id: string | null;
  prompt: string | null;
  /** `provider:modelId` of the image model, when a model made it. */
  model: string | null;
  mime_type: string;
  byte_size: number;
  /** Hex sha256 of the bytes (the ETag). */
  sha256: string;
  /** The image bytes, so every API instance can serve them. */
  data: Uint8Array;
  created_at: Timestamp;
}

/** The turn running in a chat, seen by every instance (see `services/chat/running-turns.ts`). */
export interface ChatTurnsTable {
  chat_id: string;
  turn_id: string;
  started_at: Timestamp;
  /** Refreshed by the instance running the turn; an old one means that instance is gone. */
  heartbeat_at: Timestamp;
  /** Set by any instance to cancel the turn. */
  cancel_requested: BooleanColumn;
  /** The instance holding the claim (`MANGO_INSTANCE_ID`), so it can release it after a crash. */
  instance_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Each chat's latest turn (see `services/chat/turn-events/`). */
export interface TurnsTable {
  id: string;
  chat_id: string;
  user_message_id: string;
  assistant_message_id: string;
  model: string;
  /** `running`, then the turn's `done` status. */
  status: string;
  started_at: Timestamp;
  ended_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
}

/** A turn's events in batches (`events`: a JSON array of the events first_seq..last_seq). */
export interface TurnEventsTable {
  turn_id: string;
  first_seq: number;
  last_seq: number;
  events: JsonColumn;
}

/** better-auth's limiter: one counter per client address and auth route. */
export interface RateLimitsTable {
  id: string;
  key: string;
  count: number;
  /** Milliseconds since the epoch. */
  last_request: number;
}

/** One row per turn a user started, kept for the turn-start window (services/chat/turn-rate-limit.ts). */
export interface TurnStartsTable {
  id: string;
  user_id: string;
  started_at: Timestamp;
}

/** A one-person sign-up ticket made by an admin (services/admin/invites.ts). */
export interface InvitesTable {
  id: string;
  /** sha256 of the token, hex. */
  token_hash: string;
  /** When set, only this e-mail address may sign up with the invite. */
  email: string | null;
  created_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  used_by: string | null;
}

/** A directory an admin granted a user's system tools (services/admin/granted-roots.ts). */
export interface GrantedRootsTable {
  id: string;
  user_id: string;
  /** Absolute and normalised. */
  path: string;
  created_at: Timestamp;
}

export interface DatabaseSchema {
  users: UsersTable;
  sessions: SessionsTable;
  accounts: AccountsTable;
  verifications: VerificationsTable;
  api_keys: ApiKeysTable;
  user_tool_settings: UserToolSettingsTable;
  chats: ChatsTable;
  messages: MessagesTable;
  file_reads: FileReadsTable;
  mcp_servers: McpServersTable;
  generated_images: GeneratedImagesTable;
  chat_turns: ChatTurnsTable;
  turns: TurnsTable;
  turn_events: TurnEventsTable;
  rate_limits: RateLimitsTable;
  turn_starts: TurnStartsTable;
  invites: InvitesTable;
  granted_roots: GrantedRootsTable;
}
