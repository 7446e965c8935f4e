/**
 * An MCP server's configuration as the services use it (plain data), and the
 * tools of its last listing as MCP describes them.
 */
import type { McpServerType } from '@mango/shared';

/** One tool of a server's `tools/list`, the fields this server uses. */
export interface McpListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface McpServerRecord {
  id: string;
  /** The user who configured it (an admin for a shared server). */
  ownerId: string;
  /** Whether the owner is an admin now (a stdio server of anyone else runs only allow-listed commands). */
  ownerIsAdmin: boolean;
  name: string;
  slug: string;
  type: McpServerType;
  enabled: boolean;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  cwd: string | null;
  url: string | null;
  headers: Record<string, string>;
  shared: boolean;
  callTimeoutSeconds: number | null;
  /** The last complete listing any connection made (null before the first). */
  toolListing: McpListedTool[] | null;
  createdAt: string;
  updatedAt: string;
}

/** What identifies a server's configuration: a connection made for another one is stale. */
export function configurationVersion(record: McpServerRecord): string {
  return `${record.id}@${record.updatedAt}`;
}
