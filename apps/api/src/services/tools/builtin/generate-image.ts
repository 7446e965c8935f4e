/**
 * generate_image (docs/tools/generate-image.md): images from a text prompt,
 * made by the server's image models during a chat turn. The tool needs the
 * image models and the images store, so it is built by a factory and
 * registered by the composition root. With no image model configured it is
 * listed `unavailable` and never offered. The model reads one summary with
 * references (`/api/images/:id`), never image bytes; each image is attached to
 * the turn as it is stored (docs/tool-system.md#attachments).
 */
import type { ImageStore } from '../../images/image-store';
import { parseToolArguments, requireNonBlank } from '../arg-parsing';
import { ToolAbortedError, ToolExecutionError, ToolTimeoutError } from '../errors';
import type { EffectiveToolSettings, RegisteredTool, ToolDefinition } from '../types';
import {
  createGenerateImageToolPlan,
  type GenerateImageArguments,
  type ImageModelSource,
} from './generate-image/generate-image-plan';
import {
  GENERATE_IMAGE_DEFAULTS,
  GENERATE_IMAGE_DESCRIPTORS,
  IMAGE_QUALITIES,
  readGenerateImageSettings,
} from './generate-image/generate-image-settings';
import { runGenerateImagePlan } from './generate-image/run-generate-image-plan';

export type { ImageModelSource } from './generate-image/generate-image-plan';
export { createGenerateImageToolPlan } from './generate-image/generate-image-plan';

export const GENERATE_IMAGE_TOOL_NAME = 'generate_image';
export const MAX_PROMPT_LENGTH = 32_000;

export const NO_IMAGE_MODEL_REASON =
  'No image model is configured: the operator sets MANGO_IMAGE_MODELS (provider:modelId, e.g. openai:gpt-image-1) and that provider’s key.';

const RESULT_NOTE =
  'The images are already shown to the user in the chat; do not embed them, link them or describe them as attached. Refer to them in words.';

export interface GenerateImageToolDeps {
  models: ImageModelSource;
  images: ImageStore;
  /** Milliseconds, for generationMs (injectable for tests). */
  now?: () => number;
}

function describeTool(maxImages: number): string {
  return `Creates ${maxImages === 1 ? 'an image' : `1 to ${maxImages} images`} from a text description with an image-generation model. The images are shown to the user as soon as each is ready; the result lists them by reference. Describe the subject, style, composition and colours in the prompt.`;
}

/**
 * What the model sees: `quality` only when the AI may choose it, `model` only
 * when there is a choice. `forParsing` gives both always, so a call that sends
 * them anyway is read rather than refused.
 */
function buildDefinition(
  settings: EffectiveToolSettings,
  models: ImageModelSource,
  forParsing = false,
): ToolDefinition {
  const read = readGenerateImageSettings(settings.parameters);
  const names = models.list().map((model) => model.name);
  return {
    name: GENERATE_IMAGE_TOOL_NAME,
    description: describeTool(read.maxImagesPerCall),
    parameters: {
      type: 'object',
      properties: {
        prompt: {
          type: 'string',
          description: 'What the image shows, in detail.',
          minLength: 1,
          maxLength: MAX_PROMPT_LENGTH,
        },
        count: {
          type: 'integer',
          description: `How many images to make (1 to ${read.maxImagesPerCall}; default 1).`,
          minimum: 1,
          maximum: read.maxImagesPerCall,
        },
        ...(read.letAiDecideQuality || forParsing
          ? {
              quality: {
                type: 'string',
                description: 'Image quality: higher takes longer. Default: the user’s setting.',
                enum: [...IMAGE_QUALITIES],
              },
            }
          : {}),
        ...(names.length > 1 || forParsing
          ? {
              model: {
                type: 'string',
                description: 'The image model; "auto" (the default) uses the user’s choice.',
                enum: ['auto', ...names],
              },
            }
          : {}),
      },
      required: ['prompt'],
      additionalProperties: false,
    },
  };
}

export function createGenerateImageTool(deps: GenerateImageToolDeps): RegisteredTool {
  const now = deps.now ?? (() => performance.now());
  const defaults = { enabled: true, parameters: { ...GENERATE_IMAGE_DEFAULTS } };
  return {
    definition: buildDefinition(defaults, deps.models),
    buildDefinition: (settings) => buildDefinition(settings, deps.models),
    settings: {
      title: 'Generate image',
      description:
        'Lets the model create images with the server’s image models; each image is stored and shown in the chat.',
      category: 'image',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: { ...GENERATE_IMAGE_DEFAULTS },
      parameterDescriptors: GENERATE_IMAGE_DESCRIPTORS,
    },
    runsAlone: true,
    settlesOnAbort: true,
    unavailableReason: () => (deps.models.list().length === 0 ? NO_IMAGE_MODEL_REASON : undefined),
    checkParameter(name, value) {
      if (name !== 'defaultModel' || value === 'auto') return undefined;
      const names = deps.models.list().map((model) => model.name);
      return typeof value === 'string' && names.includes(value)
        ? undefined
        : `defaultModel must be "auto" or one of the offered image models (${names.join(', ') || 'none configured'}).`;
    },
    async execute(rawArgs, context) {
      const settings = readGenerateImageSettings(context.parameters);
      // A model that sends `quality` while the user decides is not refused; its choice is just
      // not honoured (a warning in the result says so).
      const definition = buildDefinition(
        { enabled: true, parameters: context.parameters },
        deps.models,
        true,
      );
      const args = parseToolArguments<GenerateImageArguments & Record<string, unknown>>(
        rawArgs,
        definition.parameters,
      );
      requireNonBlank(args.prompt, 'prompt');
      const plan = createGenerateImageToolPlan(args, settings, deps.models);
      const outcome = await runGenerateImagePlan(plan, context, { images: deps.images, now });
      if (outcome.images.length === 0) {
        const first = outcome.errors[0];
        const details = {
          errors: outcome.errors.map(({ index, code, message }) => ({ index, code, message })),
        };
        if (first?.code === 'timeout')
          throw new ToolTimeoutError(
            `No image was finished within the ${settings.timeoutSeconds} s budget (timeoutSeconds). Ask for fewer images or a lower quality, or ask the user to raise timeoutSeconds.`,
            { details },
          );
        if (first?.code === 'aborted')
          throw new ToolAbortedError('The call was cancelled before any image was finished.', {
            details,
          });
        throw new ToolExecutionError(
          `No image could be made with ${plan.model.name}: ${first ? `${first.code}: ${first.message}` : 'no reason given'}`,
          { details, retryable: first?.retryable ?? false },
        );
      }
      const ignoredQuality =
        args.quality !== undefined &&
        plan.qualitySource === 'setting' &&
        args.quality !== plan.quality
          ? [
              {
                type: 'other' as const,
                feature: 'quality',
                message: `The quality "${args.quality}" was not applied: the user's setting (${plan.quality}) decides.`,
              },
            ]
          : [];
      const warnings = [...ignoredQuality, ...outcome.warnings];
      return {
        images: outcome.images,
        ...(outcome.errors.length > 0 ? { errors: outcome.errors } : {}),
        count: outcome.images.length,
        requested: plan.images.length,
        model: plan.model.name,
        quality: plan.quality,
        ...(warnings.length > 0 ? { warnings } : {}),
        note: RESULT_NOTE,
      };
    },
  };
}
