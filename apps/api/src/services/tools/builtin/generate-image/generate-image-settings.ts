/**
 * generate_image's settings (docs/tools/generate-image.md#settings) and how
 * stored values are read: coerced into range, never refused (a model that is
 * no longer configured reads as `auto`).
 */
import type { ImageQuality } from '../../../providers/spec';
import {
  clampIntegerSetting,
  getBooleanSetting,
  getStringSetting,
} from '../../stored-setting-readers';
import type { ToolParameterDescriptor } from '../../types';

export const IMAGE_QUALITIES: readonly ImageQuality[] = ['low', 'medium', 'high', 'auto'];
export const IMAGE_TIMEOUT_SECONDS = { min: 5, max: 600, default: 30 } as const;
export const MAX_IMAGES_PER_CALL = { min: 1, max: 4, default: 4 } as const;
/** `defaultModel`'s value for "the first model offered". */
export const AUTO_MODEL = 'auto';

export interface GenerateImageSettings {
  timeoutSeconds: number;
  maxImagesPerCall: number;
  defaultQuality: ImageQuality;
  defaultModel: string;
  letAiDecideQuality: boolean;
}

export const GENERATE_IMAGE_DEFAULTS: GenerateImageSettings = {
  timeoutSeconds: IMAGE_TIMEOUT_SECONDS.default,
  maxImagesPerCall: MAX_IMAGES_PER_CALL.default,
  defaultQuality: 'auto',
  defaultModel: AUTO_MODEL,
  letAiDecideQuality: false,
};

export const GENERATE_IMAGE_DESCRIPTORS: ToolParameterDescriptor[] = [
  {
    name: 'timeoutSeconds',
    label: 'Timeout (seconds)',
    description:
      'The budget of one call, all its images together. When it runs out the image in progress is stopped; the finished ones are kept.',
    type: 'number',
    integer: true,
    min: IMAGE_TIMEOUT_SECONDS.min,
    max: IMAGE_TIMEOUT_SECONDS.max,
    defaultValue: IMAGE_TIMEOUT_SECONDS.default,
  },
  {
    name: 'maxImagesPerCall',
    label: 'Images per call (at most)',
    description: 'The largest count one call may ask for; the model is told this maximum.',
    type: 'number',
    integer: true,
    min: MAX_IMAGES_PER_CALL.min,
    max: MAX_IMAGES_PER_CALL.max,
    defaultValue: MAX_IMAGES_PER_CALL.default,
  },
  {
    name: 'defaultQuality',
    label: 'Quality',
    description:
      'The quality asked of the image model (higher takes longer and costs more), unless the AI may choose.',
    type: 'select',
    options: IMAGE_QUALITIES.map((value) => ({ value, label: value })),
    defaultValue: GENERATE_IMAGE_DEFAULTS.defaultQuality,
  },
  {
    name: 'defaultModel',
    label: 'Image model',
    description:
      'provider:modelId of the image model used when the AI names none; "auto" is the first model the server offers.',
    type: 'string',
    defaultValue: AUTO_MODEL,
  },
  {
    name: 'letAiDecideQuality',
    label: 'Let the AI choose the quality',
    description:
      'When on, the model may ask for a quality per call; when off, the quality above applies.',
    type: 'boolean',
    defaultValue: GENERATE_IMAGE_DEFAULTS.letAiDecideQuality,
  },
];

export function readGenerateImageSettings(
  parameters: Record<string, unknown>,
): GenerateImageSettings {
  const quality = getStringSetting(
    parameters.defaultQuality,
    GENERATE_IMAGE_DEFAULTS.defaultQuality,
  );
  return {
    timeoutSeconds: clampIntegerSetting(parameters.timeoutSeconds, {
      min: IMAGE_TIMEOUT_SECONDS.min,
      max: IMAGE_TIMEOUT_SECONDS.max,
      fallback: IMAGE_TIMEOUT_SECONDS.default,
    }),
    maxImagesPerCall: clampIntegerSetting(parameters.maxImagesPerCall, {
      min: MAX_IMAGES_PER_CALL.min,
      max: MAX_IMAGES_PER_CALL.max,
      fallback: MAX_IMAGES_PER_CALL.default,
    }),
    defaultQuality: (IMAGE_QUALITIES as readonly string[]).includes(quality)
      ? (quality as ImageQuality)
      : GENERATE_IMAGE_DEFAULTS.defaultQuality,
    defaultModel: getStringSetting(parameters.defaultModel, AUTO_MODEL).trim() || AUTO_MODEL,
    letAiDecideQuality: getBooleanSetting(
      parameters.letAiDecideQuality,
      GENERATE_IMAGE_DEFAULTS.letAiDecideQuality,
    ),
  };
}
