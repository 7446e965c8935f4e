/**
 * One entry of the `mcpServers` JSON users copy from MCP servers' READMEs
 * (Claude Desktop, Cursor, VS Code) as a server body: `{ command, args, env,
 * cwd }` is a stdio server, `{ url, headers }` (any `type` of http, sse or
 * streamable-http) an http one; `disabled: true` stores it disabled. What
 * does not fit is refused with what was expected.
 */
import { CreateMcpServerBody } from '@mango/shared';
import { Value } from '@sinclair/typebox/value';
import { ApiError } from '../../errors';
import { slugFromName } from './mcp-tool-names';

const HTTP_TYPES = new Set(['http', 'sse', 'streamable-http', 'streamablehttp', 'streamable_http']);

function refuse(name: string, message: string): ApiError {
  return new ApiError('validation_failed', `"${name}": ${message}`);
}

export function parseImportEntry(
  name: string,
  entry: Record<string, unknown>,
): CreateMcpServerBody {
  const type = typeof entry.type === 'string' ? entry.type.toLowerCase() : undefined;
  const hasUrl = entry.url !== undefined;
  const hasCommand = entry.command !== undefined;
  if (hasUrl && hasCommand)
    throw refuse(
      name,
      'has both "command" (stdio) and "url" (http); an entry is one or the other.',
    );
  if (!hasUrl && !hasCommand)
    throw refuse(name, 'needs "command" (a stdio server) or "url" (an http server).');
  if (type !== undefined && type !== 'stdio' && !HTTP_TYPES.has(type))
    throw refuse(name, `has type "${entry.type}"; expected stdio, http, sse or streamable-http.`);
  if (type === 'stdio' && hasUrl)
    throw refuse(name, 'has type stdio but a "url"; stdio takes "command".');
  if (type !== undefined && HTTP_TYPES.has(type) && hasCommand)
    throw refuse(name, `has type ${entry.type} but a "command"; http takes "url".`);
  const body: Record<string, unknown> = {
    name,
    slug: slugFromName(name),
    type: hasUrl ? 'http' : 'stdio',
    enabled: entry.disabled !== true,
  };
  for (const field of hasUrl ? ['url', 'headers'] : ['command', 'args', 'env', 'cwd'])
    if (entry[field] !== undefined) body[field] = entry[field];
  if (!Value.Check(CreateMcpServerBody, body)) {
    const first = Value.Errors(CreateMcpServerBody, body).First();
    const field = first?.path.replace(/^\//, '') || 'entry';
    throw refuse(
      name,
      `${field} ${first?.message ?? 'is invalid'} (command is a string, args a list of strings, env and headers objects of string values, url a string).`,
    );
  }
  return body as CreateMcpServerBody;
}
