/**
 * Loads the MCP SDK (mcp-sdk.ts) the first time a connection needs it. This
 * module imports nothing of the SDK itself, so importing it loads nothing.
 */
export type McpSdk = typeof import('./mcp-sdk');

let loaded: McpSdk | undefined;

/** The SDK, loaded on the first call. */
export async function loadMcpSdk(): Promise<McpSdk> {
  loaded ??= await import('./mcp-sdk');
  return loaded;
}

/**
 * The SDK if it is loaded. Before it is, no value can be an instance of one of
 * its classes, so a check of that answers no without loading it.
 */
export function loadedMcpSdk(): McpSdk | undefined {
  return loaded;
}
