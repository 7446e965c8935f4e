/**
 * The API client: same-origin `fetch` (the session cookie goes along), JSON
 * in and out, and every refusal turned into an `ApiError` carrying the
 * server's `{ error: { code, message } }`, so pages show the message, never
 * raw JSON.
 */
import { GET_HEADERS, takePrefetched } from './prefetch';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The error body's other fields (`key`, `details`, `retryable`…). */
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Reads an error reply; a body that is not the API's error shape still gives a readable message. */
export async function errorFrom(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { error?: Record<string, unknown>; message?: string };
    const error = parsed.error;
    if (error && typeof error.message === 'string')
      return new ApiError(response.status, String(error.code ?? 'error'), error.message, error);
    if (typeof parsed.message === 'string')
      return new ApiError(response.status, 'error', parsed.message);
  } catch {
    // Not JSON: fall through.
  }
  return new ApiError(
    response.status,
    'http_error',
    `The server answered ${response.status} ${response.statusText}.`,
  );
}

/** Dispatched on `window` when the API says the session is gone. */
export const SIGNED_OUT_EVENT = 'mango:signed-out';

export interface RequestOptions {
  method?: string;
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...GET_HEADERS, ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
  // A plain GET the page sent at start (lib/prefetch.ts) takes that answer.
  const early =
    method === 'GET' && options.headers === undefined ? takePrefetched(path) : undefined;
  let response: Response;
  try {
    response = await (early ??
      fetch(path, {
        method,
        headers,
        credentials: 'same-origin',
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        ...(options.signal ? { signal: options.signal } : {}),
      }));
    options.signal?.throwIfAborted();
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'connection_failed', 'The server could not be reached. Is it running?');
  }
  if (!response.ok) {
    const error = await errorFrom(response);
    // The session ended (signed out elsewhere, expired, the account disabled): back to sign-in.
    if (response.status === 401 && !path.startsWith('/api/auth/'))
      dispatchEvent(new CustomEvent(SIGNED_OUT_EVENT));
    throw error;
  }
  return response;
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await request(path, options);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : null) as T;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
