/** The MCP layer (docs/mcp.md): servers in Settings → MCP, their connections, their tools as tool sources. */
export { McpConnection, McpConnectionError } from './mcp-connection';
export {
  createMcpConnectionManager,
  MCP_SERVERS_CHANNEL,
  type McpConnectionManager,
} from './mcp-connection-manager';
export { checkMcpUrl, createMcpFetch } from './mcp-fetch';
export { MASKED_VALUE, type McpActor, type McpPolicy } from './mcp-server-input';
export type { McpListedTool, McpServerRecord } from './mcp-server-record';
export { createMcpServerRepository, type McpServerRepository } from './mcp-server-repository';
export { createMcpServerService, type McpServerService } from './mcp-server-service';
export { DEFAULT_MCP_SETTINGS, type McpSettings } from './mcp-settings';
export { exposedToolName, exposedToolNames, slugFromName } from './mcp-tool-names';
export { createMcpToolSources, type McpToolSources, mcpSourceId } from './mcp-tool-source';
