/**
 * Settings → MCP (docs/mcp.md#settings--mcp): the signed-in user's MCP
 * servers and the shared ones. Another user's server answers 404; a shared
 * server is read-only (403) to everyone but its admin.
 */
import {
  CreateMcpServerBody,
  ImportMcpServersBody,
  ImportMcpServersResponse,
  McpServer,
  McpServerListResponse,
  McpServerTestResult,
  UpdateMcpServerBody,
} from '@mango/shared';
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import type { McpServerService } from '../services/mcp';
import { currentUser } from './authentication';
import { errorResponses } from './error-responses';

const ServerParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const tags = ['MCP'];

export function createMcpRoutes(service: McpServerService) {
  return new Elysia({ name: 'mango/mcp-routes', prefix: '/mcp/servers' })
    .use(currentUser())
    .get(
      '',
      async ({ user }): Promise<McpServerListResponse> => ({ servers: await service.list(user) }),
      {
        response: { 200: McpServerListResponse, ...errorResponses(401) },
        detail: {
          summary:
            "The caller's MCP servers and the shared ones, with this instance's connection state",
          tags,
        },
      },
    )
    .post(
      '',
      async ({ user, body, set }) => {
        const server = await service.create(user, body);
        set.status = 201;
        return server;
      },
      {
        body: CreateMcpServerBody,
        response: { 201: McpServer, ...errorResponses(400, 401, 403, 409, 413, 415, 422) },
        detail: {
          summary: 'Add an MCP server (stdio: admins, or commands in MANGO_MCP_STDIO_ALLOW)',
          description:
            'Nothing is started: an enabled server connects at its first use (a turn, the inspector, a test).',
          tags,
        },
      },
    )
    .post('/import', async ({ user, body }) => service.import(user, body), {
      body: ImportMcpServersBody,
      response: { 200: ImportMcpServersResponse, ...errorResponses(400, 401, 413, 415, 422) },
      detail: {
        summary:
          'Import an mcpServers JSON (Claude Desktop, Cursor, VS Code): one server per entry',
        description: 'Each entry is created or refused on its own; the answer says which and why.',
        tags,
      },
    })
    .get('/:id', ({ user, params }) => service.get(user, params.id), {
      params: ServerParams,
      response: { 200: McpServer, ...errorResponses(401, 404) },
      detail: { summary: 'One MCP server', tags },
    })
    .put('/:id', ({ user, params, body }) => service.update(user, params.id, body), {
      params: ServerParams,
      body: UpdateMcpServerBody,
      response: { 200: McpServer, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422) },
      detail: {
        summary: 'Change an MCP server (partial; {"enabled": false} alone works)',
        description:
          'Its connections close at once; the next use runs the new configuration. A masked env or header value keeps the stored one.',
        tags,
      },
    })
    .delete(
      '/:id',
      async ({ user, params, set }) => {
        await service.delete(user, params.id);
        set.status = 204;
      },
      {
        params: ServerParams,
        response: { 204: Type.Void(), ...errorResponses(401, 403, 404) },
        detail: { summary: 'Delete an MCP server and stop its connections', tags },
      },
    )
    .post('/:id/test', ({ user, params }) => service.test(user, params.id), {
      params: ServerParams,
      response: { 200: McpServerTestResult, ...errorResponses(401, 403, 404, 409) },
      detail: {
        summary:
          'Connect now: the server name, version, tool count and time, or the classified failure with its stderr tail',
        description: 'Uses the connection turns use, so a test warms the next turn.',
        tags,
      },
    });
}
