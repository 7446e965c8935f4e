/**
 * How an MCP server's failures read in Settings → MCP and in tool results:
 * classified (`timeout`, `connection_failed`, `permission_denied`), with the
 * values of the server's env and headers masked wherever they show up.
 */
import type { McpServerError } from '@mango/shared';
import type { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { loadedMcpSdk } from './mcp-sdk-loader';
import type { McpServerRecord } from './mcp-server-record';

/** The SDK's HTTP error (a status the server answered); never before the SDK is loaded. */
export function isStreamableHttpError(error: unknown): error is StreamableHTTPError {
  const sdk = loadedMcpSdk();
  return sdk !== undefined && error instanceof sdk.StreamableHTTPError;
}

/** A JSON-RPC error of the protocol (a timeout, a closed connection). */
function isMcpError(error: unknown): error is McpError {
  const sdk = loadedMcpSdk();
  return sdk !== undefined && error instanceof sdk.McpError;
}

/** A 404 to a request in a session: the server no longer knows it. */
export function isExpiredSession(error: unknown): boolean {
  return isStreamableHttpError(error) && error.code === 404;
}

/** The transport is gone (a crashed process, a closed connection). */
export function isClosedConnection(error: unknown): boolean {
  return (
    (isMcpError(error) && error.code === -32000) ||
    (error instanceof Error && error.message === 'Not connected')
  );
}

/** Masks the values of the server's env and headers wherever they appear in text it wrote. */
export function maskSecrets(text: string, record: McpServerRecord): string {
  let masked = text;
  for (const value of [...Object.values(record.env), ...Object.values(record.headers)]) {
    if (value.length >= 4) masked = masked.split(value).join('••••');
  }
  return masked;
}

/** A failure as Settings → MCP shows it: a code, what happened, the stderr tail. */
export function describeFailure(
  error: unknown,
  record: McpServerRecord,
  stderrTail: string,
  at: number,
): McpServerError {
  const raw = error instanceof Error ? error.message : String(error);
  let code = 'connection_failed';
  let message = raw;
  if (isMcpError(error) && error.code === -32001) {
    code = 'timeout';
    message = `The server did not answer in time (${raw}).`;
  } else if (isExpiredSession(error)) {
    message = `The server no longer knows this session (HTTP 404, ${raw}); the next use starts a new one.`;
  } else if (isStreamableHttpError(error)) {
    message = `The server answered HTTP ${error.code ?? '?'}: ${raw}`;
  } else if (/ENOENT|not found in \$PATH|Executable not found/i.test(raw)) {
    message = `The command "${record.command}" was not found (${raw}). Check the command and PATH.`;
  } else if (error instanceof Error && error.name === 'GuardedFetchError') {
    code = 'permission_denied';
  }
  const tail = maskSecrets(stderrTail, record).trim();
  return {
    code,
    message: maskSecrets(message, record),
    ...(tail ? { stderrTail: tail } : {}),
    at: new Date(at).toISOString(),
  };
}
