/**
 * The one base of every error this server raises on purpose: a stable `code`
 * from the shared vocabulary (`ERROR_CODES` in `apps/shared`, documented in
 * docs/errors.md), a message written for whoever must act on it, whether
 * trying again may work, and optional details. The HTTP error handler, the
 * turn stream and the tool-result serialiser all read these four fields, so a
 * code survives unchanged from where it was raised to the client or the model.
 */
import {
  ERROR_CODES,
  type ErrorBody,
  type ErrorCode,
  type ErrorDetails,
  statusForErrorCode,
} from '@mango/shared';

export { ERROR_CODES, type ErrorCode, isErrorCode, statusForErrorCode } from '@mango/shared';

export interface AppErrorOptions {
  cause?: unknown;
  /** Overrides the code's default (`ERROR_CODES[code].retryable`). */
  retryable?: boolean;
  details?: ErrorDetails;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  /** True when the same request or call may succeed if simply tried again later. */
  readonly retryable: boolean;
  readonly details?: ErrorDetails;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
    if (options.details) this.details = options.details;
  }

  /** The HTTP status this error answers with. */
  get status(): number {
    return statusForErrorCode(this.code);
  }

  /** What a client or a model is shown. */
  toJSON(): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

/** An error of the HTTP layer or an application service that has no more specific class. */
export class ApiError extends AppError {}

/** The server's configuration is invalid (reported at start-up). */
export class ConfigurationError extends AppError {
  constructor(message: string, options: Omit<AppErrorOptions, 'retryable'> = {}) {
    super('invalid_configuration', message, options);
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

export function unauthorized(): ApiError {
  return new ApiError(
    'unauthorized',
    'This route needs a signed-in user: send the session cookie from POST /api/auth/sign-in/email, or an API key as "Authorization: Bearer <key>".',
  );
}

/**
 * What an unexpected failure (anything that is not an `AppError`) shows: a
 * generic message naming the request id under which the rest was logged.
 */
export function internalErrorBody(requestId: string | undefined): ErrorBody {
  return {
    code: 'internal_error',
    message: `Something went wrong on the server. It has been logged${requestId ? ` under request id ${requestId}` : ''}; try again, and report it if it keeps happening.`,
    retryable: true,
    ...(requestId ? { requestId } : {}),
  };
}
