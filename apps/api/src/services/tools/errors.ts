/**
 * The tool layer's errors. Every failure a tool or the execution layer raises is a
 * `ToolError` with a stable `code`; the turn loop turns each one into an error
 * result the model can read and act on. `ToolError` derives from the app's one
 * base (`AppError`), narrowed to the codes a tool call can fail with.
 */
import { AppError, type AppErrorOptions, type ErrorCode } from '../../errors';

export const TOOL_ERROR_CODES = [
  'validation_failed',
  'permission_denied',
  'not_found',
  'file_not_read',
  'stale_file',
  'timeout',
  'aborted',
  'tool_disabled',
  'tool_unavailable',
  'unknown_tool',
  'execution_failed',
] as const satisfies readonly ErrorCode[];

/** The codes a tool call can fail with (a subset of the one `ErrorCode` vocabulary). */
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

export type ToolErrorOptions = AppErrorOptions;

export class ToolError extends AppError {
  declare readonly code: ToolErrorCode;

  constructor(code: ToolErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(code, message, options);
  }
}

/** A tool call's arguments were missing, unknown or of the wrong type or range. */
export class ToolArgumentError extends ToolError {
  constructor(message: string, options: ToolErrorOptions = {}) {
    super('validation_failed', message, options);
  }
}

/** grep was given a regular expression that does not compile. */
export class GrepPatternError extends ToolError {
  constructor(message: string, options: ToolErrorOptions = {}) {
    super('validation_failed', message, options);
  }
}

/** The path policy (docs/tools/filesystem.md#paths-and-the-working-directory) refused a path. */
export class PermissionDeniedError extends ToolError {
  constructor(message: string, options: ToolErrorOptions = {}) {
    super('permission_denied', message, options);
  }
}

export class NotFoundError extends ToolError {
  constructor(message: string, options: ToolErrorOptions = {}) {
    super('not_found', message, options);
  }
}

/** An overwrite or edit of a file this chat has not read completely. */
export class FileNotReadError extends ToolError {
  constructor(message: string, options: ToolErrorOptions = {}) {
    super('file_not_read', message, options);
  }
}

/** An overwrite or edit of a file that changed since this chat read it. */
export class StaleFileError extends ToolError {
  constructor(message: string, options: ToolErrorOptions = {}) {
    super('stale_file', message, options);
  }
}

export class ToolTimeoutError extends ToolError {
  constructor(message: string, options: ToolErrorOptions = {}) {
    super('timeout', message, { retryable: true, ...options });
  }
}

/** The call was cancelled by its parent (user cancel, closed stream); never a timeout. */
export class ToolAbortedError extends ToolError {
  constructor(
    message = 'The tool call was cancelled before it finished.',
    options: ToolErrorOptions = {},
  ) {
    super('aborted', message, options);
  }
}

export class ToolDisabledError extends ToolError {
  constructor(message: string, options: ToolErrorOptions = {}) {
    super('tool_disabled', message, options);
  }
}

/** The tool exists, but its source cannot serve it now (the reason is in the message and `details.reason`). */
export class ToolUnavailableError extends ToolError {
  constructor(message: string, options: ToolErrorOptions = {}) {
    super('tool_unavailable', message, options);
  }
}

export class UnknownToolError extends ToolError {
  constructor(message: string, options: ToolErrorOptions = {}) {
    super('unknown_tool', message, options);
  }
}

export class ToolExecutionError extends ToolError {
  constructor(message: string, options: ToolErrorOptions = {}) {
    super('execution_failed', message, options);
  }
}

/**
 * A tool setting (not a tool call argument) is invalid: unknown name, wrong type,
 * out of range or not one of the allowed options. The settings API answers it
 * with 422 `ToolSettingsError`.
 */
export class ToolParameterError extends AppError {
  declare readonly code: 'invalid_tool_settings';
  /** The setting that was refused (`enabled` for the on/off switch). */
  readonly key: string;

  constructor(key: string, message: string, options: { toolName?: string } = {}) {
    super('invalid_tool_settings', message, {
      details: { ...(options.toolName ? { toolName: options.toolName } : {}), key },
    });
    this.key = key;
  }
}

/** A failure of a tool's run as the model sees it: anything that is not a `ToolError` is `execution_failed`. */
export function asToolError(error: unknown, toolName: string): ToolError {
  if (error instanceof ToolError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ToolExecutionError(`Tool "${toolName}" failed: ${message}`, { cause: error });
}

export function isToolError(value: unknown): value is ToolError {
  return value instanceof ToolError;
}
