/**
 * Carries out a generate_image plan (docs/tools/generate-image.md#execution):
 * the images one after another, one request each, every request given the
 * call's signal (the whole-call budget and the turn's cancel), so the request
 * in flight is aborted the moment either fires. Each image ends `completed`
 * or `failed` on its own; a finished image is stored and attached the moment
 * it arrives, so a refusal, a timeout or a stop never loses the ones before
 * it. What is left when the signal fires is reported `timeout` or `aborted`.
 */
import type { ErrorCode } from '@mango/shared';
import { AppError } from '../../../../errors';
import type { ImageStore } from '../../../images/image-store';
import type { ImageModelUsage, ImageModelWarning } from '../../../providers/spec';
import { ToolTimeoutError } from '../../errors';
import type { ToolContext } from '../../types';
import type { GenerateImagePlan } from './generate-image-plan';

export interface GeneratedImageSummary {
  index: number;
  imageId: string;
  url: string;
  mediaType: string;
  model: string;
  generationMs: number;
  revisedPrompt?: string;
}

export interface FailedImageSummary {
  index: number;
  code: ErrorCode;
  message: string;
  retryable: boolean;
}

export interface GenerateImageOutcome {
  images: GeneratedImageSummary[];
  errors: FailedImageSummary[];
  warnings: ImageModelWarning[];
  usage?: ImageModelUsage;
}

export interface RunPlanDependencies {
  images: ImageStore;
  now: () => number;
}

/** Why the rest of the call's images were not made, from the signal's reason. */
function stoppedFailure(signal: AbortSignal, index: number, madeSoFar: number): FailedImageSummary {
  if (signal.reason instanceof ToolTimeoutError)
    return {
      index,
      code: 'timeout',
      message: `Not made: the call's time budget (timeoutSeconds) ran out${madeSoFar > 0 ? ` after ${madeSoFar} image${madeSoFar === 1 ? '' : 's'}` : ''}. Ask for fewer images, a lower quality, or ask the user to raise timeoutSeconds.`,
      retryable: true,
    };
  return { index, code: 'aborted', message: 'Not made: the turn was cancelled.', retryable: false };
}

function failureOf(error: unknown, index: number): FailedImageSummary {
  if (error instanceof AppError)
    return { index, code: error.code, message: error.message, retryable: error.retryable };
  return {
    index,
    code: 'execution_failed',
    message: error instanceof Error ? error.message : String(error),
    retryable: false,
  };
}

function addUsage(total: ImageModelUsage | undefined, more: ImageModelUsage | undefined) {
  if (!more) return total;
  const sum = (a?: number, b?: number) =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  const next: ImageModelUsage = {};
  const inputTokens = sum(total?.inputTokens, more.inputTokens);
  const outputTokens = sum(total?.outputTokens, more.outputTokens);
  const totalTokens = sum(total?.totalTokens, more.totalTokens);
  if (inputTokens !== undefined) next.inputTokens = inputTokens;
  if (outputTokens !== undefined) next.outputTokens = outputTokens;
  if (totalTokens !== undefined) next.totalTokens = totalTokens;
  return next;
}

export async function runGenerateImagePlan(
  plan: GenerateImagePlan,
  context: ToolContext,
  deps: RunPlanDependencies,
): Promise<GenerateImageOutcome> {
  const { signal } = context;
  const outcome: GenerateImageOutcome = { images: [], errors: [], warnings: [] };
  const total = plan.images.length;
  const report = (phase: string) =>
    context.emit?.({
      type: 'image_progress',
      message: `${outcome.images.length} of ${total} image${total === 1 ? '' : 's'} ready${outcome.errors.length > 0 ? `, ${outcome.errors.length} failed` : ''}`,
      data: {
        phase,
        total,
        completed: outcome.images.length,
        failed: outcome.errors.length,
        images: outcome.images.map(({ index, imageId, url }) => ({ index, imageId, url })),
      },
    });
  const fail = (failure: FailedImageSummary) => {
    outcome.errors.push(failure);
    context.attach?.({
      type: 'image_failed',
      index: failure.index,
      code: failure.code,
      message: failure.message,
    });
  };

  for (const planned of plan.images) {
    if (signal.aborted) {
      fail(stoppedFailure(signal, planned.index, outcome.images.length));
      continue;
    }
    report('generating');
    const started = deps.now();
    try {
      const result = await plan.model.generate({
        prompt: plan.prompt,
        count: 1,
        quality: plan.quality,
        signal,
      });
      outcome.warnings.push(...result.warnings);
      const usage = addUsage(outcome.usage, result.usage);
      if (usage) outcome.usage = usage;
      const image = result.images[0];
      if (!image)
        throw new AppError('provider_error', `${plan.model.name} answered without an image.`);
      const saved = await deps.images.save({
        id: planned.imageId,
        userId: context.userId,
        chatId: context.chatId,
        ...(context.toolCallId ? { toolCallId: context.toolCallId } : {}),
        mimeType: image.mediaType,
        bytes: image.bytes,
        prompt: plan.prompt,
        model: plan.model.name,
      });
      const generationMs = Math.max(0, Math.round(deps.now() - started));
      outcome.images.push({
        index: planned.index,
        imageId: saved.id,
        url: saved.url,
        mediaType: saved.mimeType,
        model: plan.model.name,
        generationMs,
        ...(image.revisedPrompt ? { revisedPrompt: image.revisedPrompt } : {}),
      });
      context.attach?.({
        type: 'image',
        index: planned.index,
        imageId: saved.id,
        url: saved.url,
        mediaType: saved.mimeType,
        alt: plan.prompt.slice(0, 500),
      });
    } catch (error) {
      fail(
        signal.aborted
          ? stoppedFailure(signal, planned.index, outcome.images.length)
          : failureOf(error, planned.index),
      );
    }
  }
  report('done');
  return outcome;
}
