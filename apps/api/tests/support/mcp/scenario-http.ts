/**
 * The scenario server over Streamable HTTP on a loopback port (test support),
 * one MCP session per client, counted. It can forget its sessions (the next
 * request with an old session id gets 404, as after a server restart), hang
 * on initialize, speak only the older SSE transport's refusal (405 to POST),
 * or redirect elsewhere.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createScenarioServer, type ScenarioOptions } from './scenario-server';

export interface ScenarioHttpOptions extends ScenarioOptions {
  hangOnInitialize?: boolean;
  /** Answers every request with a redirect to this URL. */
  redirectTo?: string;
}

export interface ScenarioHttpServer {
  url: string;
  /** Sessions initialised so far. */
  readonly sessionsStarted: number;
  /** Sessions a client ended with DELETE. */
  readonly sessionsTerminated: number;
  /** Calls that saw their cancel. */
  readonly cancels: string[];
  /** Requests received, with their Authorization header. */
  readonly authorizations: (string | null)[];
  expireSessions(): void;
  stop(): Promise<void>;
}

export function startScenarioHttpServer(options: ScenarioHttpOptions = {}): ScenarioHttpServer {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  let sessionsStarted = 0;
  let sessionsTerminated = 0;
  const cancels: string[] = [];
  const authorizations: (string | null)[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(request) {
      authorizations.push(request.headers.get('authorization'));
      if (options.redirectTo)
        return new Response(null, { status: 307, headers: { location: options.redirectTo } });
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId) {
        const transport = sessions.get(sessionId);
        if (!transport)
          return Response.json(
            { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
            { status: 404 },
          );
        if (request.method === 'DELETE') {
          sessionsTerminated += 1;
          sessions.delete(sessionId);
        }
        return transport.handleRequest(request);
      }
      if (request.method !== 'POST') return new Response('Method not allowed', { status: 405 });
      if (options.hangOnInitialize) return new Promise<Response>(() => {});
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => {
          sessionsStarted += 1;
          sessions.set(id, transport);
        },
      });
      const mcp = createScenarioServer({ ...options, onCancel: (tool) => cancels.push(tool) });
      await mcp.connect(transport);
      return transport.handleRequest(request);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    get sessionsStarted() {
      return sessionsStarted;
    },
    get sessionsTerminated() {
      return sessionsTerminated;
    },
    cancels,
    authorizations,
    expireSessions: () => sessions.clear(),
    stop: async () => {
      await server.stop(true);
    },
  };
}
