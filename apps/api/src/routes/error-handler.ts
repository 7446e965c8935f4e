/**
 * The one HTTP error handler: every failure leaves as `{ error: { code,
 * message, retryable, details? } }` with the status its code maps to
 * (`ERROR_CODES` in `apps/shared`). Every error raised on purpose is an
 * `AppError` and is answered as it is; framework errors (a body of the wrong
 * shape, invalid JSON, an unknown route) get codes of their own; anything
 * unexpected is logged and answered with a generic 500 that names the request
 * id to look for in the logs.
 */
import type { ErrorBody, ErrorResponse } from '@mango/shared';
import { ValidationError } from 'elysia';
import { AppError, internalErrorBody, statusForErrorCode } from '../errors';
import type { Logger } from '../logger';

export interface ErrorReply {
  status: number;
  body: ErrorResponse;
}

const MAX_LISTED_ISSUES = 5;

function describeValidation(error: ValidationError): string {
  const issues = error.all.slice(0, MAX_LISTED_ISSUES).map((issue) => {
    const path = 'path' in issue && issue.path ? issue.path : '(the whole value)';
    const summary = ('summary' in issue && issue.summary) || issue.message;
    return `${path}: ${summary}`;
  });
  const where = error.type === 'body' ? 'request body' : `request ${error.type}`;
  return `The ${where} does not have the expected shape: ${issues.join('; ')}. See GET /api/openapi for the schema.`;
}

function reply(body: ErrorBody): ErrorReply {
  const error: ErrorResponse['error'] & Record<string, unknown> = { ...body };
  // The settings contract names the refused setting beside the code too (as its first version did).
  if (body.code === 'invalid_tool_settings' && body.details) {
    const { toolName, key } = body.details;
    if (typeof toolName === 'string') error.toolName = toolName;
    if (typeof key === 'string') error.key = key;
  }
  return { status: statusForErrorCode(body.code), body: { error } };
}

function invalidRequest(message: string): ErrorReply {
  return reply({ code: 'invalid_request', message, retryable: false });
}

/** Classifies an error from anywhere in a request into the reply the client gets. */
export function toErrorReply(frameworkCode: unknown, error: unknown): ErrorReply | undefined {
  if (error instanceof AppError) return reply(error.toJSON());
  // The body reader (routes/request-body.ts) refuses bodies from inside the framework's parse step,
  // which wraps what it throws.
  if (frameworkCode === 'PARSE' && error instanceof Error && error.cause instanceof AppError) {
    return reply(error.cause.toJSON());
  }
  if (error instanceof ValidationError) {
    // A response that fails its own schema is our bug, not the client's.
    if (error.type === 'response') return undefined;
    return invalidRequest(describeValidation(error));
  }
  switch (frameworkCode) {
    case 'PARSE':
      return invalidRequest(
        'The request body could not be parsed. Send JSON with "Content-Type: application/json".',
      );
    case 'NOT_FOUND':
      return reply({
        code: 'not_found',
        message: 'There is no such route. GET /api/openapi lists every route.',
        retryable: false,
      });
    case 'INVALID_COOKIE_SIGNATURE':
      return invalidRequest('A cookie was tampered with or signed by another secret.');
    default:
      return undefined;
  }
}

export function internalErrorReply(requestId: string | undefined): ErrorReply {
  return reply(internalErrorBody(requestId));
}

/** What the root app's `onError` hook does. */
export function handleError(
  logger: Logger,
  context: { code: unknown; error: unknown; request: Request; requestId?: string },
): Response {
  const known = toErrorReply(context.code, context.error);
  const { status, body } = known ?? internalErrorReply(context.requestId);
  if (!known) {
    logger.error('unhandled error', {
      requestId: context.requestId,
      method: context.request.method,
      path: new URL(context.request.url).pathname,
      error: context.error,
    });
  }
  const retryAfter = body.error.details?.retryAfterSeconds;
  // A refusal that knows when to try again says so the standard way too.
  const headers: Record<string, string> =
    typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {};
  return Response.json(body, { status, headers });
}
