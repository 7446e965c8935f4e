/**
 * The API's errors: one base class with a stable `code`, and the one map from
 * code to HTTP status. Tool errors (`services/tools/errors.ts`) keep their own
 * codes; the map covers those too, so a code survives unchanged from the tool
 * layer to the client.
 */
import type { ToolErrorCode } from './services/tools/errors';

export const API_ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'invalid_tool_settings',
  'rate_limited',
  'internal_error',
  'upstream_error',
  'service_unavailable',
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];
export type ErrorCode = ApiErrorCode | ToolErrorCode;

/** The status each code answers with (SPEC §15). */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid_tool_settings: 422,
  rate_limited: 429,
  internal_error: 500,
  upstream_error: 502,
  service_unavailable: 503,
  // Tool layer codes, when one reaches HTTP directly.
  validation_failed: 422,
  permission_denied: 403,
  file_not_read: 409,
  stale_file: 409,
  timeout: 504,
  aborted: 409,
  tool_disabled: 409,
  unknown_tool: 404,
  execution_failed: 500,
};

export function statusForCode(code: string): number {
  return (ERROR_STATUS as Record<string, number>)[code] ?? 500;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  /** Extra fields returned beside `code` and `message` (e.g. the setting that was refused). */
  readonly details?: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    if (options.details) this.details = options.details;
  }

  get status(): number {
    return statusForCode(this.code);
  }
}

export function unauthorized(): ApiError {
  return new ApiError(
    'unauthorized',
    'This route needs a signed-in user: send the session cookie from POST /api/auth/sign-in/email, or an API key as "Authorization: Bearer <key>".',
  );
}
