/**
 * Why an image request failed (docs/images.md#errors), classified once for
 * every image adapter: refusals by the provider's safety system
 * (`content_policy_violation`) and an account out of credit
 * (`quota_exceeded`) are not worth repeating; a rate limit is. The rest
 * follows the language-model adapters' classification (by HTTP status and
 * error type, not SDK class).
 */
import type { ErrorCode } from '@mango/shared';
import { AppError } from '../../../errors';
import { toProviderErrorEvent } from './provider-stream-error';

export class ImageGenerationError extends AppError {
  /** The provider's HTTP status, when there was one. */
  readonly providerStatus?: number;
  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; providerStatus?: number; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, {
      ...(options.cause !== undefined ? { cause: options.cause } : {}),
      ...(options.details ? { details: options.details } : {}),
    });
    if (options.providerStatus !== undefined) this.providerStatus = options.providerStatus;
  }
}

const MODERATION_CODES = new Set([
  'moderation_blocked',
  'content_policy_violation',
  'content_filter',
  'safety_violation',
]);

function field(error: object, name: string): unknown {
  return (error as Record<string, unknown>)[name];
}

/** Classifies what an SDK call threw. */
export function classifyImageError(
  label: string,
  error: unknown,
  signal?: AbortSignal,
): ImageGenerationError {
  if (error instanceof ImageGenerationError) return error;
  if (signal?.aborted)
    return new ImageGenerationError('aborted', `${label}: the request was cancelled.`, {
      cause: error,
    });
  const detail = error instanceof Error ? error.message : String(error);
  if (typeof error === 'object' && error !== null) {
    const status =
      typeof field(error, 'status') === 'number' ? (field(error, 'status') as number) : undefined;
    const code = String(field(error, 'code') ?? '');
    const type = String(field(error, 'type') ?? '');
    const options = { cause: error, ...(status !== undefined ? { providerStatus: status } : {}) };
    if (
      MODERATION_CODES.has(code) ||
      type === 'image_generation_user_error' ||
      /safety system/i.test(detail)
    )
      return new ImageGenerationError(
        'content_policy_violation',
        `${label}: the provider's safety system refused this image (${detail}). Describe the image differently; the same prompt will be refused again.`,
        options,
      );
    if (code === 'insufficient_quota' || /exceeded your current quota|billing/i.test(detail))
      return new ImageGenerationError(
        'quota_exceeded',
        `${label}: the provider account is out of quota (${detail}). The operator must add credit; do not retry.`,
        options,
      );
  }
  const event = toProviderErrorEvent(label, error, signal);
  return new ImageGenerationError(event.code, event.message, {
    cause: error,
    ...(event.status !== undefined ? { providerStatus: event.status } : {}),
  });
}
