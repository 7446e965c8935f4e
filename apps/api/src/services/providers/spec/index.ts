/** The provider contract (docs/chat-turns.md#the-provider-contract): types only, shared by the adapters and the turn loop. */
export type {
  AssistantMessage,
  ConversationMessage,
  ErrorEvent,
  FinishReason,
  ProviderErrorCode,
  ProviderMetadata,
  ProviderStreamEvent,
  ToolCallPart,
  ToolMessage,
  ToolResultPart,
  UsageEvent,
  UserMessage,
} from '@mango/shared';
export type {
  GeneratedImageData,
  ImageModel,
  ImageModelRequest,
  ImageModelResult,
  ImageModelUsage,
  ImageModelWarning,
  ImageProviderId,
  ImageQuality,
} from './image-model';
export type {
  LanguageModelProvider,
  ListedModel,
  ListModelsOptions,
  ProviderId,
} from './language-model-provider';
export type { ProviderRequest, ProviderToolChoice } from './provider-request';
export type { JsonSchema, JsonSchemaType, ToolDefinition } from './tool-definition';
