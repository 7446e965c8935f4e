import { describe, expect, test } from 'bun:test';
import { ERROR_CODE_LIST, ERROR_CODES, ErrorCode, PROVIDER_ERROR_CODES } from '@mango/shared';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from '../../src/config';
import { DatabaseConnectionError } from '../../src/db/database';
import { DatabaseMigrationError } from '../../src/db/migrate';
import { ApiError, AppError, statusForErrorCode } from '../../src/errors';
import { TurnOptionsError } from '../../src/services/chat/run-chat-turn';
import { ProviderConfigError } from '../../src/services/providers/provider-config';
import { ModelNameError } from '../../src/services/providers/provider-registry';
import { ProviderStreamError } from '../../src/services/providers/shared/provider-stream-error';
import {
  FileNotReadError,
  GrepPatternError,
  NotFoundError,
  PermissionDeniedError,
  StaleFileError,
  TOOL_ERROR_CODES,
  ToolAbortedError,
  ToolArgumentError,
  ToolDisabledError,
  ToolExecutionError,
  ToolParameterError,
  ToolTimeoutError,
  ToolUnavailableError,
  UnknownToolError,
} from '../../src/services/tools/errors';
import { ToolRegistrationError } from '../../src/services/tools/registry';

describe('the error code vocabulary', () => {
  test('every code has a status the API answers with, a retryable default and a meaning', () => {
    const statuses = new Set([400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 502, 503, 504]);
    for (const code of ERROR_CODE_LIST) {
      const info = ERROR_CODES[code];
      expect(statuses.has(info.status)).toBe(true);
      expect(typeof info.retryable).toBe('boolean');
      expect(info.meaning.length).toBeGreaterThan(20);
      expect(statusForErrorCode(code)).toBe(info.status);
    }
    expect(statusForErrorCode('no_such_code')).toBe(500);
  });

  test('the tool and provider codes are codes of the one vocabulary', () => {
    for (const code of [...TOOL_ERROR_CODES, ...PROVIDER_ERROR_CODES])
      expect(Value.Check(ErrorCode, code)).toBe(true);
    expect(Value.Check(ErrorCode, 'made_up')).toBe(false);
  });

  test('the statuses of docs/http-api.md#routes and of the tool layer', () => {
    expect(
      Object.fromEntries(
        (
          [
            'unauthorized',
            'forbidden',
            'not_found',
            'conflict',
            'validation_failed',
            'rate_limited',
            'internal_error',
            'provider_error',
            'timeout',
          ] as const
        ).map((code) => [code, ERROR_CODES[code].status]),
      ),
    ).toEqual({
      unauthorized: 401,
      forbidden: 403,
      not_found: 404,
      conflict: 409,
      validation_failed: 422,
      rate_limited: 429,
      internal_error: 500,
      provider_error: 502,
      timeout: 504,
    });
  });
});

describe('one base for every error class', () => {
  const cases: [AppError, string][] = [
    [new ApiError('conflict', 'busy'), 'conflict'],
    [new ToolArgumentError('bad'), 'validation_failed'],
    [new GrepPatternError('bad'), 'validation_failed'],
    [new PermissionDeniedError('no'), 'permission_denied'],
    [new NotFoundError('gone'), 'not_found'],
    [new FileNotReadError('read it'), 'file_not_read'],
    [new StaleFileError('changed'), 'stale_file'],
    [new ToolTimeoutError('slow'), 'timeout'],
    [new ToolAbortedError(), 'aborted'],
    [new ToolDisabledError('off'), 'tool_disabled'],
    [new ToolUnavailableError('down'), 'tool_unavailable'],
    [new UnknownToolError('who'), 'unknown_tool'],
    [new ToolExecutionError('broke'), 'execution_failed'],
    [new ToolParameterError('colour', 'no such setting'), 'invalid_tool_settings'],
    [new ToolRegistrationError('bad tool'), 'invalid_configuration'],
    [new ModelNameError('bad model'), 'validation_failed'],
    [new TurnOptionsError('bad limit', 'maxIterations'), 'validation_failed'],
    [new ProviderStreamError('invalid_chunk', 'bad chunk'), 'invalid_chunk'],
    [new ConfigError('bad PORT'), 'invalid_configuration'],
    [new ProviderConfigError('bad URL'), 'invalid_configuration'],
    [new DatabaseConnectionError('down'), 'service_unavailable'],
    [new DatabaseMigrationError('failed'), 'internal_error'],
  ];

  test.each(cases.map(([error, code]) => [error.constructor.name, error, code] as const))(
    '%s derives from AppError with its code',
    (_name, error, code) => {
      expect(error).toBeInstanceOf(AppError);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(code as never);
      expect(error.name).toBe(error.constructor.name);
      expect(error.status).toBe(statusForErrorCode(code));
    },
  );

  test('retryable defaults to the code’s and can be overridden; details are kept', () => {
    expect(new ToolTimeoutError('slow').retryable).toBe(true);
    expect(new ToolArgumentError('bad').retryable).toBe(false);
    expect(new ApiError('rate_limited', 'wait').retryable).toBe(true);
    expect(new ApiError('rate_limited', 'wait', { retryable: false }).retryable).toBe(false);
    const error = new ToolArgumentError('path must be a string', {
      details: { argument: 'path' },
    });
    expect(error.toJSON()).toEqual({
      code: 'validation_failed',
      message: 'path must be a string',
      retryable: false,
      details: { argument: 'path' },
    });
    expect(new ModelNameError('x').details).toEqual({ field: 'model' });
    expect(new ToolParameterError('colour', 'x', { toolName: 'grep' }).details).toEqual({
      toolName: 'grep',
      key: 'colour',
    });
  });
});
