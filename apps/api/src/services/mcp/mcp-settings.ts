/** The MCP layer's configuration: who may run what, and its time budgets. */

/** MCP servers' rules and budgets (README.md#configuration, docs/mcp.md). */
export interface McpSettings {
  /** Commands anyone may configure as a stdio server (`MANGO_MCP_STDIO_ALLOW`). */
  stdioAllow: readonly string[];
  /** Loopback and private addresses allowed for http servers (`MANGO_MCP_ALLOW_PRIVATE_URLS`). */
  allowPrivateUrls: boolean;
  /** How long a turn (or the inspector) waits for a server to connect and list (`MANGO_MCP_CONNECT_BUDGET_SECONDS`). */
  connectBudgetMs: number;
  /** How long one connection attempt may take in the background (`MANGO_MCP_CONNECT_TIMEOUT_SECONDS`). */
  connectTimeoutMs: number;
  /** A tool call's timeout when its server sets none (`MANGO_MCP_CALL_TIMEOUT_SECONDS`). */
  callTimeoutSeconds: number;
  /** How long an unused connection stays open (`MANGO_MCP_IDLE_TIMEOUT_SECONDS`). */
  idleTimeoutMs: number;
}

export const DEFAULT_MCP_SETTINGS: McpSettings = {
  stdioAllow: [],
  allowPrivateUrls: false,
  connectBudgetMs: 5_000,
  connectTimeoutMs: 30_000,
  callTimeoutSeconds: 60,
  idleTimeoutMs: 15 * 60_000,
};
