/**
 * The one log line of a failed provider request (docs/operations.md#logs):
 * which provider, which model (for a model call), the provider's HTTP status
 * when it answered, the error code, and the request that caused it.
 */
import type { ErrorCode } from '@mango/shared';
import type { Logger } from '../../logger';
import type { ProviderId } from './spec';

export const PROVIDER_FAILURE_LOG_MESSAGE = 'provider request failed';

export interface ProviderFailure {
  provider: ProviderId;
  /** What was asked: a model call of a turn, or the provider's model list. */
  operation: 'model_call' | 'list_models';
  /** The model called (absent for the model list). */
  model?: string;
  status?: number;
  errorCode: ErrorCode;
  message: string;
  requestId?: string;
  chatId?: string;
}

export function logProviderFailure(logger: Logger | undefined, failure: ProviderFailure): void {
  logger?.warn(PROVIDER_FAILURE_LOG_MESSAGE, { ...failure });
}
