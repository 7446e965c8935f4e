/**
 * The one HTTP error handler: every failure leaves as `{ error: { code,
 * message, ...details } }` with the status its code maps to (`errors.ts`).
 * Framework errors (a body of the wrong shape, invalid JSON, an unknown route)
 * get codes of their own; anything unexpected is logged and answered with a
 * generic 500 that names the request id to look for in the logs.
 */
import type { ErrorResponse } from '@mango/shared';
import { ValidationError } from 'elysia';
import { ApiError, statusForCode } from '../errors';
import type { Logger } from '../logger';
import { ToolError, ToolParameterError } from '../services/tools/errors';

export interface ErrorReply {
  status: number;
  body: ErrorResponse & { error: Record<string, unknown> };
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

function reply(code: string, message: string, details?: Record<string, unknown>): ErrorReply {
  return { status: statusForCode(code), body: { error: { code, message, ...details } } };
}

/** Classifies an error from anywhere in a request into the reply the client gets. */
export function toErrorReply(frameworkCode: unknown, error: unknown): ErrorReply | undefined {
  if (error instanceof ApiError) return reply(error.code, error.message, error.details);
  if (error instanceof ToolError) return reply(error.code, error.message);
  if (error instanceof ToolParameterError) {
    return reply('invalid_tool_settings', error.message, { key: error.key });
  }
  if (error instanceof ValidationError) {
    // A response that fails its own schema is our bug, not the client's.
    if (error.type === 'response') return undefined;
    return reply('invalid_request', describeValidation(error));
  }
  switch (frameworkCode) {
    case 'PARSE':
      return reply(
        'invalid_request',
        'The request body could not be parsed. Send JSON with "Content-Type: application/json".',
      );
    case 'NOT_FOUND':
      return reply('not_found', 'There is no such route. GET /api/openapi lists every route.');
    case 'INVALID_COOKIE_SIGNATURE':
      return reply('invalid_request', 'A cookie was tampered with or signed by another secret.');
    default:
      return undefined;
  }
}

export function internalErrorReply(requestId: string | undefined): ErrorReply {
  return reply(
    'internal_error',
    `Something went wrong on the server. It has been logged${requestId ? ` under request id ${requestId}` : ''}; try again, and report it if it keeps happening.`,
  );
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
  return Response.json(body, { status });
}
