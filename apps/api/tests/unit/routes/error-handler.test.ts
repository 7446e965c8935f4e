import { describe, expect, test } from 'bun:test';
import { ErrorResponse, ToolSettingsError } from '@mango/shared';
import { Value } from '@sinclair/typebox/value';
import { ApiError } from '../../../src/errors';
import { type Logger, silentLogger } from '../../../src/logger';
import { handleError, internalErrorReply, toErrorReply } from '../../../src/routes/error-handler';
import {
  ToolArgumentError,
  ToolParameterError,
  ToolTimeoutError,
} from '../../../src/services/tools/errors';

describe('the HTTP error handler', () => {
  test('a tool error keeps its code, retryable flag and details', () => {
    const reply = toErrorReply(
      undefined,
      new ToolArgumentError('path must be a string', { details: { argument: 'path' } }),
    );
    expect(reply).toEqual({
      status: 422,
      body: {
        error: {
          code: 'validation_failed',
          message: 'path must be a string',
          retryable: false,
          details: { argument: 'path' },
        },
      },
    });
    expect(Value.Check(ErrorResponse, reply?.body)).toBe(true);
    expect(toErrorReply(undefined, new ToolTimeoutError('slow'))).toMatchObject({
      status: 504,
      body: { error: { code: 'timeout', retryable: true } },
    });
  });

  test('a refused setting answers the ToolSettingsError contract', () => {
    const reply = toErrorReply(
      undefined,
      new ApiError('invalid_tool_settings', 'timeoutSeconds must be at most 600', {
        details: { toolName: 'bash', key: 'timeoutSeconds' },
      }),
    );
    expect(reply?.status).toBe(422);
    expect(Value.Check(ToolSettingsError, reply?.body)).toBe(true);
    expect(reply?.body.error).toMatchObject({ toolName: 'bash', key: 'timeoutSeconds' });
    const direct = toErrorReply(
      undefined,
      new ToolParameterError('key', 'x', { toolName: 'grep' }),
    );
    expect(Value.Check(ToolSettingsError, direct?.body)).toBe(true);
  });

  test('framework errors get codes of their own', () => {
    expect(toErrorReply('PARSE', new Error('Unexpected token'))).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', retryable: false } },
    });
    expect(toErrorReply('NOT_FOUND', new Error('NOT_FOUND'))?.status).toBe(404);
  });

  test('an unexpected failure is generic, names the request id, and is logged whole', async () => {
    expect(toErrorReply(undefined, new Error('database password is hunter2'))).toBeUndefined();
    const logged: unknown[] = [];
    const logger: Logger = {
      ...silentLogger,
      error: (message, fields) => logged.push({ message, fields }),
    };
    const response = handleError(logger, {
      code: 'UNKNOWN',
      error: new Error('database password is hunter2'),
      request: new Request('http://localhost/api/chats'),
      requestId: 'req-123',
    });
    expect(response.status).toBe(500);
    const body = (await response.json()) as ErrorResponse;
    expect(body).toEqual(internalErrorReply('req-123').body);
    expect(body.error).toMatchObject({
      code: 'internal_error',
      retryable: true,
      requestId: 'req-123',
    });
    expect(body.error.message).toContain('req-123');
    expect(JSON.stringify(body)).not.toContain('hunter2');
    expect(JSON.stringify(logged)).toContain('req-123');
  });
});
