/**
 * Classifies whatever went wrong during a model call into the contract's
 * `error` event: a stable code, a message for the person who must act, and
 * whether sending the same turn again may work. The SDKs throw different
 * classes for the same situation, so this reads what they have in common (an
 * HTTP `status`, an error `type`) rather than their class names alone.
 */

import type { ErrorEvent, ProviderErrorCode } from '@mango/shared';
import { AppError } from '../../../errors';

const RETRYABLE: ReadonlySet<ProviderErrorCode> = new Set([
  'rate_limited',
  'provider_unavailable',
  'provider_timeout',
  'connection_failed',
  'stream_interrupted',
  'invalid_chunk',
  'internal_error',
]);

/** An error an adapter raises itself (a bad chunk, a stream that ended early). */
export class ProviderStreamError extends AppError {
  declare readonly code: ProviderErrorCode;
  constructor(code: ProviderErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

export function isRetryableProviderError(code: ProviderErrorCode): boolean {
  return RETRYABLE.has(code);
}

export function providerErrorEvent(
  code: ProviderErrorCode,
  message: string,
  status?: number,
): ErrorEvent {
  const event: ErrorEvent = { type: 'error', code, message, retryable: RETRYABLE.has(code) };
  if (status !== undefined) event.status = status;
  return event;
}

function codeForStatus(status: number): ProviderErrorCode {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'provider_timeout';
  if (status === 401 || status === 403) return 'authentication_failed';
  if (status >= 500) return 'provider_unavailable';
  return 'invalid_request';
}

/** Error `type`s sent inside a stream (Anthropic `event: error`, OpenAI `data.error`). */
function codeForErrorType(type: string): ProviderErrorCode | undefined {
  if (/rate_limit/.test(type)) return 'rate_limited';
  if (/overloaded|server_error|api_error|unavailable/.test(type)) return 'provider_unavailable';
  if (/authentication|permission/.test(type)) return 'authentication_failed';
  if (/invalid_request|not_found|request_too_large/.test(type)) return 'invalid_request';
  return undefined;
}

const ADVICE: Record<ProviderErrorCode, string> = {
  rate_limited: 'The provider is rate-limiting this key; wait a little and send the message again.',
  provider_unavailable: 'The provider had a server-side failure; send the message again shortly.',
  provider_timeout: 'The provider did not answer in time; send the message again.',
  connection_failed: 'Check the provider base URL and the network, then send the message again.',
  stream_interrupted: 'What arrived before the cut is kept; send the message again to continue.',
  invalid_chunk: 'What arrived before the bad chunk is kept; send the message again to continue.',
  authentication_failed: 'Check the provider API key in the server configuration.',
  invalid_request: 'The provider refused the request; check the model name and the conversation.',
  provider_error: 'Send the message again; if it keeps failing, check the server log.',
  aborted: 'The turn was cancelled.',
  internal_error:
    'The server failed while running the turn; it has been logged. Send the message again.',
};

function readStatus(error: object): number | undefined {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}

function readErrorType(error: object): string | undefined {
  const candidates = [
    (error as { type?: unknown }).type,
    (error as { code?: unknown }).code,
    (error as { error?: { type?: unknown; error?: { type?: unknown } } }).error?.type,
    (error as { error?: { error?: { type?: unknown } } }).error?.error?.type,
  ];
  return candidates.find((value): value is string => typeof value === 'string');
}

/** Bun's fetch reports a refused or unresolvable address as a plain TypeError with these words. */
const CONNECT_PATTERN =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|unable to connect/i;

/**
 * The error's class name: the `openai` SDK leaves `name` as "Error" on its
 * connection and timeout errors, so the constructor's name is read too.
 */
function errorName(error: object): string | undefined {
  const name = (error as { name?: unknown }).name;
  if (typeof name === 'string' && name !== 'Error') return name;
  const constructorName = error.constructor?.name;
  return typeof constructorName === 'string' ? constructorName : undefined;
}

const CUT_PATTERN =
  /terminated|socket|ECONNRESET|closed unexpectedly|premature|incomplete json segment|other side closed|network/i;

/** Turns an exception from an SDK call or from iterating its stream into an `error` event. */
export function toProviderErrorEvent(
  providerLabel: string,
  error: unknown,
  signal?: AbortSignal,
): ErrorEvent {
  if (signal?.aborted) return turnCancelledEvent();
  const detail = error instanceof Error ? error.message : String(error);
  const say = (code: ProviderErrorCode, what: string, status?: number) =>
    providerErrorEvent(code, `${providerLabel}: ${what} ${ADVICE[code]}`, status);
  if (error instanceof ProviderStreamError) return say(error.code, error.message);
  if (typeof error !== 'object' || error === null) return say('provider_error', detail);

  const status = readStatus(error);
  if (status !== undefined) {
    return say(codeForStatus(status), `the provider answered HTTP ${status} (${detail}).`, status);
  }
  const name = errorName(error);
  if (typeof name === 'string' && /timeout/i.test(name))
    return say('provider_timeout', `the request timed out (${detail}).`);
  if (
    (typeof name === 'string' && /connection/i.test(name) && !CUT_PATTERN.test(detail)) ||
    CONNECT_PATTERN.test(detail)
  )
    return say('connection_failed', `could not connect (${detail}).`);
  const type = readErrorType(error);
  const typed = type ? codeForErrorType(type) : undefined;
  if (typed) return say(typed, `the provider reported an error in the stream (${detail}).`);
  if (error instanceof SyntaxError || /exception parsing stream chunk/i.test(detail))
    return say('invalid_chunk', `a streamed chunk was not valid JSON (${detail}).`);
  if (CUT_PATTERN.test(detail))
    return say(
      'stream_interrupted',
      `the stream was cut before the provider finished (${detail}).`,
    );
  if (typeof name === 'string' && /connection/i.test(name))
    return say('connection_failed', `the connection failed (${detail}).`);
  return say('provider_error', `the call failed (${detail}).`);
}

/** The `error` event for a turn cancelled while its model call ran. */
export function turnCancelledEvent(): ErrorEvent {
  return providerErrorEvent('aborted', ADVICE.aborted);
}

/** The `error` event for a stream that ended without the provider's closing event. */
export function streamEndedEarlyEvent(providerLabel: string): ErrorEvent {
  return providerErrorEvent(
    'stream_interrupted',
    `${providerLabel}: the stream ended before the provider said it was finished. ${ADVICE.stream_interrupted}`,
  );
}

/** How a stream that stopped without its closing event ends: cancelled, or cut short. */
export function streamStoppedEvent(providerLabel: string, signal?: AbortSignal): ErrorEvent {
  return signal?.aborted ? turnCancelledEvent() : streamEndedEarlyEvent(providerLabel);
}
