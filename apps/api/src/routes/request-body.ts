/**
 * Request bodies that cannot hurt the server (docs/security.md#request-bodies):
 * every JSON body is read here, before any route code and before the
 * framework would parse it. A body must be `application/json`, no larger than
 * its route's limit (a declared `Content-Length` over the limit is refused
 * without reading a byte; an undeclared one is cut off at the limit), and
 * nested no deeper than `MAX_JSON_DEPTH`. The depth is counted on the raw
 * bytes as they arrive, so a body of a hundred thousand `[` is refused after
 * its first 65 bytes and is never handed to `JSON.parse`.
 */
import { ApiError } from '../errors';

/** Arrays and objects inside one another, at most. */
export const MAX_JSON_DEPTH = 64;
/** Any JSON body of a route that names no limit of its own. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;
/** Chats (title, mode, working directory, model) and account requests are small. */
export const SMALL_BODY_LIMIT_BYTES = 16 * 1024;
/**
 * A turn's `content` may be 1,000,000 characters (`CreateTurnBody`); the body
 * fits it even when a client escapes every character as `\uXXXX` (6 bytes).
 */
export const TURN_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export interface BodyLimit {
  /** How docs name the route, e.g. `POST /api/chats/:id/turns`. */
  route: string;
  method: string;
  path: RegExp;
  maxBytes: number;
}

/** The routes whose bodies have a limit other than `DEFAULT_BODY_LIMIT_BYTES`; first match wins. */
export const BODY_LIMITS: readonly BodyLimit[] = [
  {
    route: 'POST /api/chats/:id/turns',
    method: 'POST',
    path: /^\/api\/chats\/[^/]+\/turns$/,
    maxBytes: TURN_BODY_LIMIT_BYTES,
  },
  {
    route: 'POST /api/chats',
    method: 'POST',
    path: /^\/api\/chats$/,
    maxBytes: SMALL_BODY_LIMIT_BYTES,
  },
  {
    route: 'PATCH /api/chats/:id',
    method: 'PATCH',
    path: /^\/api\/chats\/[^/]+$/,
    maxBytes: SMALL_BODY_LIMIT_BYTES,
  },
  {
    route: 'PUT /api/settings/tools/:toolName',
    method: 'PUT',
    path: /^\/api\/settings\/tools\/[^/]+$/,
    maxBytes: SMALL_BODY_LIMIT_BYTES,
  },
  {
    route: '/api/auth/*',
    method: '*',
    path: /^\/api\/auth\//,
    maxBytes: SMALL_BODY_LIMIT_BYTES,
  },
];

const DEFAULT_LIMIT = { route: 'this route', maxBytes: DEFAULT_BODY_LIMIT_BYTES };

/** The limit of the route a request goes to. */
export function bodyLimitFor(method: string, path: string): { route: string; maxBytes: number } {
  const limit = BODY_LIMITS.find(
    (entry) => (entry.method === '*' || entry.method === method) && entry.path.test(path),
  );
  return limit ?? DEFAULT_LIMIT;
}

function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function tooLarge(route: string, maxBytes: number): ApiError {
  return new ApiError(
    'payload_too_large',
    `The request body is larger than ${route} accepts (${describeBytes(maxBytes)}). Send a smaller body.`,
    { details: { field: 'body', maxBytes } },
  );
}

function tooDeep(): ApiError {
  return new ApiError(
    'validation_failed',
    `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels; no contract of this API needs more. Send a flatter body.`,
    { details: { field: 'body', maxDepth: MAX_JSON_DEPTH } },
  );
}

/** Whether a Content-Type names JSON (`application/json`, with or without parameters). */
export function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Counts JSON nesting over bytes as they arrive (structural characters are
 * ASCII, and UTF-8 never uses bytes below 0x80 inside a multi-byte character,
 * so scanning bytes is exact). Brackets inside strings do not count.
 */
export function createJsonDepthCounter(maxDepth: number = MAX_JSON_DEPTH) {
  let depth = 0;
  let inString = false;
  let escaped = false;
  return {
    /** Scans the next bytes; false once the nesting went past `maxDepth`. */
    push(bytes: Uint8Array): boolean {
      for (let index = 0; index < bytes.length; index += 1) {
        const byte = bytes[index] as number;
        if (inString) {
          if (escaped) escaped = false;
          else if (byte === BACKSLASH) escaped = true;
          else if (byte === QUOTE) inString = false;
        } else if (byte === QUOTE) {
          inString = true;
        } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
          depth += 1;
          if (depth > maxDepth) return false;
        } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
          depth -= 1;
        }
      }
      return true;
    },
  };
}

export interface ReadBodyOptions {
  /** How the refusal names the route. */
  route: string;
  maxBytes: number;
}

/**
 * Reads a JSON request body within its limits; `undefined` for an empty body
 * (a route without a body, such as a cancel). Throws 415, 413 or 422
 * (`unsupported_media_type`, `payload_too_large`, `validation_failed`), or 400
 * (`invalid_request`) for bytes that are not UTF-8 JSON.
 */
export async function readJsonBody(
  request: Request,
  options: ReadBodyOptions,
): Promise<{ value: unknown; text: string } | undefined> {
  const declared = request.headers.get('content-length');
  if (!request.body || (declared !== null && Number(declared) === 0)) return undefined;
  const contentType = request.headers.get('content-type');
  if (!isJsonContentType(contentType)) {
    // Without a length or a type the body may still be empty (a chunked nothing): look first.
    if (declared === null && contentType === null) {
      const bytes = await readLimited(request, options);
      if (bytes.length === 0) return undefined;
    } else {
      await request.body.cancel().catch(() => {});
    }
    throw new ApiError(
      'unsupported_media_type',
      `This route takes a JSON body: send it with "Content-Type: application/json"${contentType ? ` (got "${contentType}")` : ''}.`,
      { details: { field: 'content-type', expected: 'application/json' } },
    );
  }
  if (declared !== null && Number(declared) > options.maxBytes) {
    await request.body.cancel().catch(() => {});
    throw tooLarge(options.route, options.maxBytes);
  }
  const bytes = await readLimited(request, options);
  if (bytes.length === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError('invalid_request', 'The request body is not valid UTF-8 text.', {
      details: { field: 'body' },
    });
  }
  try {
    return { value: JSON.parse(text), text };
  } catch (error) {
    throw new ApiError(
      'invalid_request',
      `The request body is not valid JSON (${(error as Error).message}). Send JSON with "Content-Type: application/json".`,
      { details: { field: 'body' } },
    );
  }
}

/** Reads the body's bytes, refusing it as soon as it passes the size or depth limit. */
async function readLimited(request: Request, options: ReadBodyOptions): Promise<Uint8Array> {
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const depth = createJsonDepthCounter();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > options.maxBytes) throw tooLarge(options.route, options.maxBytes);
      if (!depth.push(value)) throw tooDeep();
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The app's body parser: every route's JSON body goes through `readJsonBody` with its limit. */
export async function parseRequestBody(request: Request): Promise<unknown> {
  const body = await readJsonBody(
    request,
    bodyLimitFor(request.method, new URL(request.url).pathname),
  );
  return body?.value;
}

/**
 * A copy of `request` whose body has passed `readJsonBody`, for handlers that
 * read the raw request themselves (better-auth).
 */
export async function withCheckedJsonBody(request: Request): Promise<Request> {
  if (request.method === 'GET' || request.method === 'HEAD') return request;
  const body = await readJsonBody(
    request,
    bodyLimitFor(request.method, new URL(request.url).pathname),
  );
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    ...(body ? { body: body.text } : {}),
  });
}
