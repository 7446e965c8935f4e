/**
 * One user's connection to one MCP server (docs/mcp.md#connections): opened
 * on first use and single-flight (every concurrent caller waits for the one
 * attempt), kept while it is used, and replaced by a fresh client and
 * transport after a crash, a closed transport or an expired HTTP session.
 * It owns the server's tool listing: every page of `tools/list`, read again on
 * `notifications/tools/list_changed` and on every reconnect.
 *
 * Where the SDK's defaults are wrong for a server, this module says so:
 * - every request gets our own timeout (the SDK's 60 s default applies to
 *   `initialize` too, which would hold a turn for a minute);
 * - the list is paged here (the SDK's own list-changed refresh reads page 1 only);
 * - structured output is not validated by the SDK (its validator cache keeps
 *   only the last page's tools); the model reads `content` anyway;
 * - stderr is piped and kept (the SDK inherits it into our logs by default).
 */
import type { McpServerError, McpServerStatus } from '@mango/shared';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type {
  JsonSchemaValidatorResult,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';
import { API_VERSION } from '../../version';
import {
  describeFailure,
  isClosedConnection,
  isExpiredSession,
  isStreamableHttpError,
  maskSecrets,
} from './mcp-failure';
import type { McpFetch } from './mcp-fetch';
import { loadMcpSdk, type McpSdk } from './mcp-sdk-loader';
import {
  configurationVersion,
  type McpListedTool,
  type McpServerRecord,
} from './mcp-server-record';

export interface McpConnectionOptions {
  record: McpServerRecord;
  fetch: McpFetch;
  /** How long connecting and the first listing may take before the attempt fails. */
  connectTimeoutMs: number;
  /** Called with every complete listing (to keep it for Settings → Tools). */
  onListing?: (tools: McpListedTool[]) => void;
  /** Called whenever the status changes. */
  onStatus?: (status: McpServerStatus) => void;
  now?: () => number;
}

/** A failure of the server, classified, with what it wrote to stderr. */
export class McpConnectionError extends Error {
  constructor(readonly detail: McpServerError) {
    super(detail.message);
  }
}

/** What a call needs besides its arguments. */
export interface McpCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

const STDERR_TAIL_BYTES = 4_096;
const MAX_LIST_PAGES = 100;
const LIST_CHANGED_DEBOUNCE_MS = 100;
/** After the second failure in a row, the next attempt waits 1 s, then 2 s, … up to a minute. */
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;

/** The SDK validates structured output with a cache that keeps one page of tools; we do not use it. */
const acceptEveryOutput: jsonSchemaValidator = {
  getValidator:
    <T>() =>
    (input: unknown): JsonSchemaValidatorResult<T> => ({
      valid: true,
      data: input as T,
      errorMessage: undefined,
    }),
};

/** The variables a stdio server gets besides its own: only what a program needs to run. */
function baseEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

interface Session {
  /** The SDK's classes (loaded on the first connection, mcp-sdk-loader.ts). */
  sdk: McpSdk;
  client: Client;
  transport: Transport;
  /** Set while we close it ourselves, so its close is not reported as a failure. */
  closing: boolean;
}

export class McpConnection {
  readonly record: McpServerRecord;
  readonly version: string;
  status: McpServerStatus = 'idle';
  lastError: McpServerError | null = null;
  serverInfo: { name: string; version: string } | undefined;
  /** The complete listing of the current session (undefined before it is made). */
  tools: McpListedTool[] | undefined;
  /** How many processes (stdio) or sessions (http) this connection started. */
  starts = 0;
  lastUsedAt: number;
  /** The transport that worked for an http server: Streamable HTTP, or SSE after falling back. */
  httpTransport: 'streamable' | 'sse' | undefined;

  private session: Session | undefined;
  private connecting: Promise<McpListedTool[]> | undefined;
  private failures = 0;
  private retryAt = 0;
  private stderrTail = '';
  private stderrDrained: Promise<void> = Promise.resolve();
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: McpConnectionOptions) {
    this.record = options.record;
    this.version = configurationVersion(options.record);
    this.now = options.now ?? Date.now;
    this.lastUsedAt = this.now();
  }

  /** The process id of a running stdio server. */
  get pid(): number | undefined {
    const session = this.session;
    return session && session.transport instanceof session.sdk.StdioClientTransport
      ? (session.transport.pid ?? undefined)
      : undefined;
  }

  /** Connects when needed and resolves to the complete tool listing. */
  ready(): Promise<McpListedTool[]> {
    this.lastUsedAt = this.now();
    if (this.closed)
      return Promise.reject(this.failure('connection_failed', 'The connection was closed.'));
    if (this.session && this.tools) return Promise.resolve(this.tools);
    if (this.connecting) return this.connecting;
    if (this.now() < this.retryAt && this.lastError) {
      const seconds = Math.ceil((this.retryAt - this.now()) / 1000);
      return Promise.reject(
        new McpConnectionError({
          ...this.lastError,
          message: `${this.lastError.message} (failed ${this.failures} times in a row; the next attempt is in ${seconds} s)`,
        }),
      );
    }
    const attempt = this.connect().finally(() => {
      if (this.connecting === attempt) this.connecting = undefined;
    });
    this.connecting = attempt;
    return attempt;
  }

  async call(name: string, args: unknown, options: McpCallOptions): Promise<CallToolResult> {
    await this.ready();
    const session = this.session;
    if (!session) throw this.failure('connection_failed', 'The server is not connected.');
    this.lastUsedAt = this.now();
    try {
      const result = await session.client.callTool(
        { name, arguments: (args ?? {}) as Record<string, unknown> },
        undefined,
        {
          signal: options.signal,
          // Our budget (runWithToolBudget) ends the call first; this only frees the request.
          timeout: options.timeoutMs + 1_000,
          ...(options.onProgress ? { onprogress: options.onProgress } : {}),
        },
      );
      return result as CallToolResult;
    } catch (error) {
      if (options.signal.aborted) throw error;
      // An expired session (404) needs a new one; a closed connection a new client.
      if (isExpiredSession(error) || isClosedConnection(error)) {
        this.fail(describeFailure(error, this.record, this.stderrTail, this.now()));
        await this.dropSession();
      }
      throw error;
    } finally {
      this.lastUsedAt = this.now();
    }
  }

  /** The last lines the server wrote to stderr, its configured secrets masked. */
  stderr(): string {
    return maskSecrets(this.stderrTail, this.record);
  }

  /** Closes the connection for good (the server changed, was disabled or deleted; shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refreshTimer);
    await this.dropSession();
    this.status = 'idle';
  }

  private async connect(): Promise<McpListedTool[]> {
    this.setStatus('connecting');
    const deadline = this.now() + this.options.connectTimeoutMs;
    try {
      const session = await this.open(deadline);
      this.session = session;
      const tools = await this.listAll(session, deadline);
      if (this.session !== session)
        throw this.failure(
          'connection_failed',
          'The server closed the connection while it was listing its tools.',
        );
      this.tools = tools;
      this.failures = 0;
      this.retryAt = 0;
      this.lastError = null;
      this.setStatus('ready');
      this.options.onListing?.(tools);
      return tools;
    } catch (error) {
      // What the process wrote before it died says why; it gets a moment to arrive.
      await Promise.race([this.stderrDrained, new Promise((resolve) => setTimeout(resolve, 250))]);
      const detail =
        error instanceof McpConnectionError
          ? error.detail
          : describeFailure(error, this.record, this.stderrTail, this.now());
      this.fail(detail);
      await this.dropSession();
      this.failures += 1;
      if (this.failures >= 2)
        this.retryAt =
          this.now() + Math.min(BACKOFF_BASE_MS * 2 ** (this.failures - 2), BACKOFF_MAX_MS);
      throw new McpConnectionError(detail);
    }
  }

  private async open(deadline: number): Promise<Session> {
    const { record } = this;
    const sdk = await loadMcpSdk();
    if (record.type === 'stdio') return this.start(sdk, this.stdioTransport(sdk), deadline);
    try {
      const session = await this.start(sdk, this.streamableTransport(sdk), deadline);
      this.httpTransport = 'streamable';
      return session;
    } catch (error) {
      // The older SSE transport answers a Streamable HTTP POST with 400, 404 or 405.
      if (!isStreamableHttpError(error) || ![400, 404, 405].includes(error.code ?? 0)) throw error;
      const session = await this.start(sdk, this.sseTransport(sdk), deadline);
      this.httpTransport = 'sse';
      return session;
    }
  }

  private stdioTransport(sdk: McpSdk): Transport {
    const { record } = this;
    const transport = new sdk.StdioClientTransport({
      command: record.command ?? '',
      args: record.args,
      // The SDK adds only its harmless defaults (HOME, LOGNAME, PATH, SHELL, TERM, USER).
      env: { ...baseEnvironment(), ...record.env },
      ...(record.cwd ? { cwd: record.cwd } : {}),
      stderr: 'pipe',
    });
    const stderr = transport.stderr;
    stderr?.on('data', (chunk: Buffer | string) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL_BYTES);
    });
    // A process that dies at start closes stdout before its last stderr lines are read.
    this.stderrDrained = new Promise<void>((resolve) => {
      if (!stderr) return resolve();
      stderr.once('end', resolve);
      stderr.once('close', resolve);
    });
    return transport;
  }

  private streamableTransport(sdk: McpSdk): Transport {
    return new sdk.StreamableHTTPClientTransport(new URL(this.record.url ?? ''), {
      requestInit: { headers: this.record.headers },
      fetch: this.options.fetch,
    });
  }

  private sseTransport(sdk: McpSdk): Transport {
    return new sdk.SSEClientTransport(new URL(this.record.url ?? ''), {
      requestInit: { headers: this.record.headers },
      eventSourceInit: {
        fetch: (url, init) =>
          this.options.fetch(url, {
            ...init,
            headers: { ...this.record.headers, ...(init?.headers as Record<string, string>) },
          }),
      },
      fetch: this.options.fetch,
    });
  }

  private async start(sdk: McpSdk, transport: Transport, deadline: number): Promise<Session> {
    const client = new sdk.Client(
      { name: 'mangostudio', version: API_VERSION },
      // Only what this server implements: no roots, sampling or elicitation.
      { capabilities: {}, jsonSchemaValidator: acceptEveryOutput },
    );
    const session: Session = { sdk, client, transport, closing: false };
    client.onclose = () => {
      if (this.session !== session || session.closing) return;
      this.session = undefined;
      this.tools = undefined;
      this.fail(
        describeFailure(
          new Error(
            this.record.type === 'stdio'
              ? 'The server process exited (or closed its output).'
              : 'The server closed the connection.',
          ),
          this.record,
          this.stderrTail,
          this.now(),
        ),
      );
    };
    // Errors on the side (a non-JSON line on stdout, a late progress message) are not fatal;
    // `onclose` says when the connection is gone.
    client.onerror = () => {};
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () =>
      this.scheduleRefresh(session),
    );
    this.starts += 1;
    await client.connect(transport, { timeout: Math.max(1, deadline - this.now()) });
    const version = client.getServerVersion();
    this.serverInfo = {
      name: version?.name ?? this.record.name,
      version: version?.version ?? 'unknown',
    };
    return session;
  }

  private async listAll(session: Session, deadline: number): Promise<McpListedTool[]> {
    const tools: McpListedTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      // Not `listTools()`: it refuses a whole page for one tool with a schema it does not like.
      const result = await session.client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        session.sdk.LenientToolsPage,
        { timeout: Math.max(1, deadline - this.now()) },
      );
      for (const tool of result.tools) {
        if (typeof tool.name !== 'string' || tool.name === '') continue;
        tools.push({
          name: tool.name,
          ...(typeof tool.title === 'string' && tool.title ? { title: tool.title } : {}),
          ...(typeof tool.description === 'string' && tool.description
            ? { description: tool.description }
            : {}),
          // Checked per tool where it is offered (`unmappableSchemaReason`), not here.
          inputSchema: tool.inputSchema as Record<string, unknown>,
        });
      }
      cursor = result.nextCursor;
      if (!cursor || seen.has(cursor)) return tools;
      seen.add(cursor);
    }
    return tools;
  }

  private scheduleRefresh(session: Session): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      if (this.session !== session) return;
      const deadline = this.now() + this.options.connectTimeoutMs;
      this.listAll(session, deadline).then(
        (tools) => {
          if (this.session !== session) return;
          this.tools = tools;
          this.options.onListing?.(tools);
        },
        () => {
          // The listing in hand stays; the next failure of a call says what is wrong.
        },
      );
    }, LIST_CHANGED_DEBOUNCE_MS);
  }

  private fail(detail: McpServerError): void {
    this.lastError = detail;
    this.setStatus('error');
  }

  private failure(code: string, message: string): McpConnectionError {
    return new McpConnectionError({ code, message, at: new Date(this.now()).toISOString() });
  }

  private setStatus(status: McpServerStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.options.onStatus?.(status);
  }

  private async dropSession(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    this.tools = undefined;
    if (!session) return;
    session.closing = true;
    const { transport } = session;
    // close() does not end an HTTP session; the server is told first.
    if (transport instanceof session.sdk.StreamableHTTPClientTransport && transport.sessionId)
      await transport.terminateSession().catch(() => {});
    await session.client.close().catch(() => {});
  }
}
