/**
 * `createGenerateImageToolPlan()` (docs/tools/generate-image.md#execution):
 * everything one call will do, decided before the first request — the model,
 * the quality, the prompt, and each image with its id made up front — so that
 * what the call reports (per image, in the result) refers to the same images
 * whatever happens to each.
 */
import { createImageId } from '../../../images/image-store';
import type { ImageModel, ImageQuality } from '../../../providers/spec';
import { ToolArgumentError } from '../../errors';
import { AUTO_MODEL, type GenerateImageSettings } from './generate-image-settings';

/** The image models the tool may use (the server's image-model registry). */
export interface ImageModelSource {
  /** The offered models' names (`provider:modelId`), in the configured order. */
  list(): readonly { name: string }[];
  get(name: string): ImageModel | undefined;
}

export interface GenerateImageArguments {
  prompt: string;
  count?: number;
  quality?: ImageQuality;
  model?: string;
}

export interface PlannedImage {
  /** 0-based position in the call. */
  index: number;
  imageId: string;
}

export interface GenerateImagePlan {
  prompt: string;
  model: ImageModel;
  quality: ImageQuality;
  /** Where the quality came from: the model's argument or the user's setting. */
  qualitySource: 'argument' | 'setting';
  images: PlannedImage[];
}

/** The model a call uses: its argument, else the user's default, `auto` meaning the first offered. */
function chooseModel(
  requested: string | undefined,
  settings: GenerateImageSettings,
  models: ImageModelSource,
): ImageModel {
  const offered = models.list().map((model) => model.name);
  const first = offered[0];
  if (!first)
    throw new ToolArgumentError(
      'No image model is configured on this server; answer without images.',
    );
  if (requested !== undefined && requested !== AUTO_MODEL) {
    const model = models.get(requested);
    if (!model)
      throw new ToolArgumentError(
        `Argument "model" names "${requested}", which this server does not offer. Offered: ${offered.join(', ')} (or "auto").`,
        { details: { argument: 'model' } },
      );
    return model;
  }
  // A default that is no longer offered reads as auto (a stored setting is coerced, never refused).
  const name =
    settings.defaultModel !== AUTO_MODEL && models.get(settings.defaultModel)
      ? settings.defaultModel
      : first;
  return models.get(name) as ImageModel;
}

export function createGenerateImageToolPlan(
  args: GenerateImageArguments,
  settings: GenerateImageSettings,
  models: ImageModelSource,
): GenerateImagePlan {
  const count = args.count ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > settings.maxImagesPerCall)
    throw new ToolArgumentError(
      `Argument "count" must be a whole number from 1 to ${settings.maxImagesPerCall}; received ${count}.`,
      { details: { argument: 'count' } },
    );
  const fromArgument = settings.letAiDecideQuality && args.quality !== undefined;
  return {
    prompt: args.prompt,
    model: chooseModel(args.model, settings, models),
    quality: fromArgument ? (args.quality as ImageQuality) : settings.defaultQuality,
    qualitySource: fromArgument ? 'argument' : 'setting',
    images: Array.from({ length: count }, (_, index) => ({ index, imageId: createImageId() })),
  };
}
