/**
 * What this server uses of the MCP SDK at run time, in one module that is
 * loaded the first time a connection opens (`loadMcpSdk` in
 * mcp-sdk-loader.ts): a server whose users have no MCP server never loads
 * the SDK, nearly forty thousand heap objects with its schemas that every
 * full garbage collection would walk
 * (docs/chat-turns.md#what-a-full-collection-costs). Other modules import
 * the SDK's types only.
 */
import { z } from 'zod';

export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/** A page of tools/list, with every tool taken as it came: one odd tool must not hide the others. */
export const LenientToolsPage = z
  .object({
    tools: z.array(
      z.looseObject({
        name: z.unknown(),
        title: z.unknown().optional(),
        description: z.unknown().optional(),
        inputSchema: z.unknown(),
      }),
    ),
    nextCursor: z.string().optional(),
  })
  .loose();
