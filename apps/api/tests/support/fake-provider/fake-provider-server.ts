/**
 * A fake model provider for tests: a real HTTP/1.1 server on loopback that
 * speaks each provider's wire format (OpenAI Responses, Chat Completions,
 * Anthropic Messages, Gemini streamGenerateContent) so the official SDKs can be
 * pointed at it. It records every request body and answers each call from a
 * per-provider script (or a responder function), including faults: hangs, cut
 * connections, malformed or mis-shaped chunks, HTTP 429/500. It is built on raw
 * TCP so a "cut" is a real dropped connection, not a clean end of body.
 */
import { createServer, type Socket } from 'node:net';
import { encodeAnthropic } from './encode-anthropic';
import { encodeChatCompletions } from './encode-chat-completions';
import { encodeGemini } from './encode-gemini';
import { encodeOpenAIResponses } from './encode-openai-responses';
import type { FakeProviderKind, FakeTurn, WireFrame } from './fake-turn';
import { answerModelList, type FakeModelList, isModelListPath } from './model-lists';

export interface RecordedRequest {
  provider: FakeProviderKind;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** The parsed JSON body. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary provider request fields.
  body: any;
  model: string;
}

export type FakeResponder = (request: RecordedRequest) => FakeTurn;

export interface FakeProviderServer {
  url: string;
  /** What to give each SDK as its base URL. */
  baseUrl(provider: FakeProviderKind): string;
  enqueue(provider: FakeProviderKind, ...turns: FakeTurn[]): void;
  /** Answers every call to `provider` that the queue does not (used for generated load). */
  respondWith(provider: FakeProviderKind, responder: FakeResponder): void;
  requests(provider?: FakeProviderKind): RecordedRequest[];
  /** Answers `provider`'s model-list endpoint (until reset); unscripted, it answers 404. */
  serveModels(provider: FakeProviderKind, list: FakeModelList): void;
  /** The model-list requests received (each page is one). */
  modelListRequests(provider?: FakeProviderKind): RecordedRequest[];
  /** Scripted turns not consumed yet. */
  pending(provider: FakeProviderKind): number;
  /** Connections currently open (a hung stream stays open until its client leaves). */
  openConnections(): number;
  reset(): void;
  close(): Promise<void>;
}

const ENCODERS: Record<
  FakeProviderKind,
  (turn: FakeTurn, model: string, nextId: () => number) => WireFrame[]
> = {
  openai: encodeOpenAIResponses,
  'openai-compatible': encodeChatCompletions,
  anthropic: encodeAnthropic,
  gemini: encodeGemini,
};

const PROVIDER_PREFIX = /^\/(openai-compatible|openai|anthropic|gemini)(?=\/)/;

/** Each SDK's base URL names its provider (`/openai/v1`, `/anthropic`…), since several share paths. */
function splitProviderPrefix(pathname: string): { provider?: FakeProviderKind; path: string } {
  const match = pathname.match(PROVIDER_PREFIX);
  if (!match) return { path: pathname };
  return {
    provider: match[1] as FakeProviderKind,
    path: pathname.slice((match[0] as string).length),
  };
}

function route(path: string): { provider: FakeProviderKind; model?: string } | undefined {
  if (path === '/v1/responses') return { provider: 'openai' };
  if (path === '/v1/chat/completions') return { provider: 'openai-compatible' };
  if (path === '/v1/messages') return { provider: 'anthropic' };
  const gemini = path.match(/^\/v1beta\/models\/([^/:]+):streamGenerateContent$/);
  if (gemini) return { provider: 'gemini', model: decodeURIComponent(gemini[1] as string) };
  return undefined;
}

function errorBody(provider: FakeProviderKind, status: number, message: string): unknown {
  if (provider === 'anthropic') {
    const type =
      status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  }
  if (provider === 'gemini') {
    const state =
      status === 429 ? 'RESOURCE_EXHAUSTED' : status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
    return { error: { code: status, message, status: state } };
  }
  const type =
    status === 429
      ? 'rate_limit_exceeded'
      : status >= 500
        ? 'server_error'
        : 'invalid_request_error';
  return { error: { message, type, code: type, param: null } };
}

function faultFrame(
  provider: FakeProviderKind,
  kind: 'malformed_chunk' | 'invalid_chunk',
): WireFrame {
  const end = provider === 'gemini' ? '\r\n\r\n' : '\n\n';
  if (kind === 'malformed_chunk') {
    if (provider === 'openai')
      return {
        text: `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":${end}`,
      };
    if (provider === 'anthropic')
      return {
        text: `event: content_block_delta\ndata: {"type":"content_block_delta","index":${end}`,
      };
    return { text: `data: {"choices":[{"delta":${end}` };
  }
  if (provider === 'openai')
    return {
      text: `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":99,"item_id":"msg_x","output_index":0,"content_index":0,"delta":42}${end}`,
    };
  if (provider === 'anthropic')
    return {
      text: `event: content_block_delta\ndata: {"type":"content_block_delta","index":"zero","delta":{"type":"text_delta","text":7}}${end}`,
    };
  if (provider === 'gemini')
    return {
      text: `data: {"candidates":[{"content":{"role":"model","parts":[{"text":42}]},"index":0}]}${end}`,
    };
  return {
    text: `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":42},"finish_reason":null}]}${end}`,
  };
}

/** Splits bytes where a parser is most likely to stumble: inside a UTF-8 character, else mid-frame. */
function awkwardSplit(bytes: Uint8Array): number {
  for (let index = 1; index < bytes.length; index++) {
    if (((bytes[index] as number) & 0xc0) === 0x80) return index;
  }
  return Math.max(1, Math.floor(bytes.length / 2));
}

/** What to give each SDK as its base URL, for a fake listening at `url`. */
export function fakeProviderBaseUrl(url: string, provider: FakeProviderKind): string {
  return provider === 'openai' || provider === 'openai-compatible'
    ? `${url}/${provider}/v1`
    : `${url}/${provider}`;
}

const CRLF = Buffer.from('\r\n');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export interface FakeProviderServerOptions {
  /**
   * Keep every request for `requests()` (default true). Generated load turns it
   * off: the bodies of thousands of calls would pile up in memory.
   */
  recordRequests?: boolean;
  /**
   * Keep a connection open after an answer streamed to its end, for the
   * client's next request, as a real provider does (default false: every
   * answer closes its connection, so tests see no pooled sockets). Error
   * replies, cuts and hangs close it either way. The load bench turns it on.
   */
  keepAlive?: boolean;
}

export async function startFakeProviderServer(
  options: FakeProviderServerOptions = {},
): Promise<FakeProviderServer> {
  const recordRequests = options.recordRequests ?? true;
  const keepAlive = options.keepAlive ?? false;
  const queues = new Map<FakeProviderKind, FakeTurn[]>();
  const responders = new Map<FakeProviderKind, FakeResponder>();
  const recorded: RecordedRequest[] = [];
  const modelLists = new Map<FakeProviderKind, FakeModelList>();
  const modelListRecorded: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let counter = 0;
  const nextId = () => ++counter;

  /** Streams `turn`'s answer; resolves true when the connection stays open for another request. */
  async function stream(
    socket: Socket,
    request: RecordedRequest,
    turn: FakeTurn,
  ): Promise<boolean> {
    let closed = socket.destroyed;
    const onClose = () => {
      closed = true;
    };
    socket.once('close', onClose);
    const write = (text: string | Uint8Array) => {
      if (!closed) socket.write(text);
    };
    const fault = turn.fault;
    if (fault?.type === 'http_error') {
      const body = JSON.stringify(
        errorBody(
          request.provider,
          fault.status,
          fault.message ?? `fake provider error ${fault.status}`,
        ),
      );
      const retryAfter =
        fault.retryAfterSeconds === undefined ? '' : `retry-after: ${fault.retryAfterSeconds}\r\n`;
      write(
        `HTTP/1.1 ${fault.status} Fake\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${retryAfter}connection: close\r\n\r\n${body}`,
      );
      socket.end();
      return false;
    }
    const frames: WireFrame[] =
      turn.raw !== undefined
        ? (turn.raw.match(/[\s\S]*?(\r?\n\r?\n|$)/g) ?? [])
            .filter((text) => text !== '')
            .map((text) => ({ text }))
        : ENCODERS[request.provider](turn, request.model, nextId);
    if (fault?.type === 'malformed_chunk' || fault?.type === 'invalid_chunk')
      frames.splice(
        Math.min(fault.at ?? 2, frames.length),
        0,
        faultFrame(request.provider, fault.type),
      );
    // The head goes out with the first frame, and each frame as one chunk in one write: a
    // write is a system call, and under generated load the fake's writes were most of its time.
    let head = `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n${keepAlive ? '' : 'connection: close\r\n'}\r\n`;
    const writeChunk = (bytes: Uint8Array) => {
      write(Buffer.concat([Buffer.from(`${head}${bytes.length.toString(16)}\r\n`), bytes, CRLF]));
      head = '';
    };
    let stopAfter = frames.length;
    let cutInside = false;
    if (fault?.type === 'hang') stopAfter = Math.min(fault.afterFrames ?? 1, frames.length);
    if (fault?.type === 'cut') {
      if (fault.at === 'mid_tool_call') {
        const index = frames.findIndex(
          (frame) => frame.carries === 'tool_call_arguments' || frame.carries === 'tool_call',
        );
        stopAfter = index === -1 ? 1 : index + 1;
        cutInside = index !== -1 && frames[index]?.carries === 'tool_call';
      } else stopAfter = Math.min(fault.at, frames.length);
    }
    const firstFrameAt = performance.now();
    for (let index = 0; index < stopAfter && !closed; index++) {
      const bytes = Buffer.from((frames[index] as WireFrame).text);
      if (cutInside && index === stopAfter - 1) {
        // A whole-call frame (Gemini) is cut through its middle.
        writeChunk(bytes.subarray(0, Math.floor(bytes.length / 2)));
        break;
      }
      if (turn.splitWrites) {
        const at = awkwardSplit(bytes);
        writeChunk(bytes.subarray(0, at));
        await sleep(1);
        writeChunk(bytes.subarray(at));
      } else writeChunk(bytes);
      // On a fixed schedule from the first frame, as a model's pace is its own: a timer of
      // the fake's that fires late (its process shares the machine under load) delays one
      // frame, not every frame after it.
      if (turn.frameDelayMs)
        await sleep(firstFrameAt + (index + 1) * turn.frameDelayMs - performance.now());
    }
    if (head !== '') write(head); // no frame was sent
    if (closed) return false;
    if (fault?.type === 'hang') return false; // keep the socket open until the client goes away
    if (fault?.type === 'cut') {
      await (fault.when ?? sleep(50));
      socket.destroy();
      return false;
    }
    write('0\r\n\r\n');
    if (keepAlive) {
      socket.off('close', onClose);
      return true;
    }
    socket.end();
    return false;
  }

  function nextTurn(request: RecordedRequest): FakeTurn | undefined {
    const queue = queues.get(request.provider);
    if (queue && queue.length > 0) return queue.shift();
    return responders.get(request.provider)?.(request);
  }

  /** Answers one request; resolves true when the connection stays open for another. */
  async function handle(socket: Socket, head: string, body: Buffer): Promise<boolean> {
    const [requestLine, ...headerLines] = head.split('\r\n');
    const [method = '', target = ''] = (requestLine ?? '').split(' ');
    const url = new URL(target, 'http://fake.invalid');
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      if (colon > 0)
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const prefixed = splitProviderPrefix(url.pathname);
    const routed = route(prefixed.path);
    const found =
      routed && (!prefixed.provider || prefixed.provider === routed.provider) ? routed : undefined;
    const reply = (status: number, payload: unknown) => {
      const text = JSON.stringify(payload);
      socket.end(
        `HTTP/1.1 ${status} Fake\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
    };
    if (
      method === 'GET' &&
      prefixed.provider &&
      isModelListPath(prefixed.provider, prefixed.path)
    ) {
      const provider = prefixed.provider;
      const query = Object.fromEntries(url.searchParams);
      modelListRecorded.push({
        provider,
        method,
        path: prefixed.path,
        query,
        headers,
        body: undefined,
        model: '',
      });
      const answer = answerModelList(provider, modelLists.get(provider), query);
      if (answer.type === 'hang') return false; // the socket stays open until the client goes away
      if (answer.type === 'json') reply(answer.status, answer.body);
      else reply(answer.status, errorBody(provider, answer.status, answer.message));
      return false;
    }
    if (!found || method !== 'POST') {
      reply(404, { error: { message: `fake provider: no route for ${method} ${url.pathname}` } });
      return false;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      reply(400, { error: { message: 'fake provider: the request body is not JSON' } });
      return false;
    }
    const request: RecordedRequest = {
      provider: found.provider,
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: parsed,
      model: found.model ?? String((parsed as { model?: unknown }).model ?? ''),
    };
    if (recordRequests) recorded.push(request);
    const turn = nextTurn(request);
    if (!turn) {
      reply(
        500,
        errorBody(
          found.provider,
          500,
          `fake provider: no scripted turn left for ${found.provider}`,
        ),
      );
      return false;
    }
    return stream(socket, request, turn);
  }

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffer = Buffer.alloc(0);
    // One request at a time: the next is read once the answer before it has ended.
    let busy = false;
    const handleNext = () => {
      const end = buffer.indexOf('\r\n\r\n');
      if (busy || end === -1) return;
      const head = buffer.subarray(0, end).toString('latin1');
      const length = Number(head.match(/\r\ncontent-length:\s*(\d+)/i)?.[1] ?? 0);
      if (buffer.length < end + 4 + length) return;
      busy = true;
      const body = buffer.subarray(end + 4, end + 4 + length);
      buffer = buffer.subarray(end + 4 + length);
      void handle(socket, head, body).then(
        (reuse) => {
          if (!reuse) return;
          busy = false;
          handleNext();
        },
        () => socket.destroy(),
      );
    };
    socket.on('data', (data: Buffer) => {
      // Without keep-alive a connection carries one request; what follows it is ignored.
      if (busy && !keepAlive) return;
      buffer = Buffer.concat([buffer, data]);
      handleNext();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('fake provider: no address');
  const url = `http://127.0.0.1:${address.port}`;

  return {
    url,
    baseUrl: (provider) => fakeProviderBaseUrl(url, provider),
    enqueue(provider, ...turns) {
      const queue = queues.get(provider) ?? [];
      queue.push(...turns);
      queues.set(provider, queue);
    },
    respondWith(provider, responder) {
      responders.set(provider, responder);
    },
    requests: (provider) =>
      recorded.filter((request) => !provider || request.provider === provider),
    serveModels(provider, list) {
      modelLists.set(provider, list);
    },
    modelListRequests: (provider) =>
      modelListRecorded.filter((request) => !provider || request.provider === provider),
    pending: (provider) => queues.get(provider)?.length ?? 0,
    openConnections: () => sockets.size,
    reset() {
      queues.clear();
      responders.clear();
      recorded.length = 0;
      modelLists.clear();
      modelListRecorded.length = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
