/**
 * A small MCP server of our own (test support) for what the reference servers
 * cannot do: list its tools over several pages, change its list and notify,
 * crash mid-call, hang on initialize, answer slowly and notice a cancel, name
 * a tool with 100 characters, offer schemas Gemini and strict mode reject,
 * return images and errors. The same server runs over stdio
 * (`scenario-server-stdio.ts`) and Streamable HTTP (`scenario-http.ts`).
 */
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

/** A 1×1 transparent PNG. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export const LONG_TOOL_NAME = `a_tool_with_a_very_long_name_${'x'.repeat(71)}`;

export interface ScenarioOptions {
  /** Tools per page of tools/list (all on one page without). */
  pageSize?: number;
  /** Appended to on every call that saw its cancel: `<tool>\n`. */
  markerFile?: string;
  /** Called when the client cancels a call (in process, for the HTTP server). */
  onCancel?: (tool: string) => void;
}

const object = (properties: Record<string, object>, required: string[] = []) => ({
  type: 'object' as const,
  properties,
  required,
});

const BASE_TOOLS: Tool[] = [
  {
    name: 'echo',
    title: 'Echo',
    description: 'Answers with the text it is given.',
    inputSchema: object({ text: { type: 'string' } }, ['text']),
  },
  {
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
  },
  {
    name: 'slow',
    description: 'Waits the given milliseconds, reporting progress, unless cancelled.',
    inputSchema: object({ ms: { type: 'integer' } }, ['ms']),
  },
  {
    name: 'picture',
    description: 'Returns a tiny PNG between two text parts.',
    inputSchema: object({}),
  },
  {
    name: 'fail',
    description: 'Reports a tool error (isError).',
    inputSchema: object({}),
  },
  {
    name: 'crash',
    description: 'Exits the process in the middle of the call.',
    inputSchema: object({}),
  },
  {
    name: 'big',
    description: 'Returns the given number of bytes of text.',
    inputSchema: object({ bytes: { type: 'integer' } }, ['bytes']),
  },
  {
    name: 'env_names',
    description: 'Lists the names of the environment variables the server process has.',
    inputSchema: object({}),
  },
  {
    name: 'grow',
    description: 'Adds a tool named by the argument and tells the client its list changed.',
    inputSchema: object({ name: { type: 'string' } }, ['name']),
  },
  {
    name: LONG_TOOL_NAME,
    description: 'A tool whose name is 100 characters long.',
    inputSchema: object({}),
  },
  {
    name: 'dotted.name',
    description: 'A tool whose name has a dot, which providers refuse.',
    inputSchema: object({}),
  },
  {
    name: 'union_args',
    description: 'Arguments with anyOf and an optional field: not strict-compatible.',
    inputSchema: {
      type: 'object',
      properties: {
        value: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        note: { type: 'string', minLength: 2 },
      },
      required: ['value'],
    },
  },
  {
    name: 'gemini_hostile',
    description: 'Keywords Gemini refuses: $ref/$defs, const, additionalProperties, a uri format.',
    inputSchema: {
      type: 'object',
      $defs: { link: { type: 'string', format: 'uri' } },
      properties: { link: { $ref: '#/$defs/link' }, mode: { const: 'fast' } },
      required: ['link'],
      additionalProperties: false,
    },
  },
  {
    name: 'not_an_object',
    description: 'An input schema that is not an object schema.',
    inputSchema: { type: 'string' } as unknown as Tool['inputSchema'],
  },
];

export function createScenarioServer(options: ScenarioOptions = {}): Server {
  const tools = [...BASE_TOOLS];
  const server = new Server(
    { name: 'scenario-server', version: '1.2.3' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const size = options.pageSize ?? tools.length;
    const start = Number(request.params?.cursor ?? 0);
    const page = tools.slice(start, start + size);
    const next = start + size < tools.length ? String(start + size) : undefined;
    return { tools: page, ...(next ? { nextCursor: next } : {}) };
  });
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      switch (request.params.name) {
        case 'echo':
          return { content: [{ type: 'text', text: String(args.text) }] };
        case 'add':
          return { content: [{ type: 'text', text: String(Number(args.a) + Number(args.b)) }] };
        case 'slow': {
          const token = request.params._meta?.progressToken;
          const ms = Number(args.ms);
          const started = Date.now();
          while (Date.now() - started < ms) {
            if (extra.signal.aborted) {
              if (options.markerFile) appendFileSync(options.markerFile, 'slow\n');
              options.onCancel?.('slow');
              return { content: [{ type: 'text', text: 'cancelled' }] };
            }
            if (token !== undefined)
              await extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: Date.now() - started, total: ms },
              });
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
        }
        case 'picture':
          return {
            content: [
              { type: 'text', text: 'Here is a picture:' },
              { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' },
              { type: 'text', text: 'That was it.' },
            ],
          };
        case 'fail':
          return { isError: true, content: [{ type: 'text', text: 'the thing broke' }] };
        case 'crash':
          console.error('scenario-server: crashing on purpose');
          setTimeout(() => process.exit(3), 10);
          return new Promise<never>(() => {});
        case 'big':
          return { content: [{ type: 'text', text: 'y'.repeat(Number(args.bytes)) }] };
        case 'env_names':
          return { content: [{ type: 'text', text: Object.keys(process.env).sort().join('\n') }] };
        case 'grow': {
          tools.push({
            name: String(args.name),
            description: 'A tool added while the server ran.',
            inputSchema: object({}),
          });
          await server.sendToolListChanged();
          return { content: [{ type: 'text', text: `added ${args.name}` }] };
        }
        default:
          return { content: [{ type: 'text', text: `called ${request.params.name}` }] };
      }
    },
  );
  return server;
}
