import { type Static, Type } from '@sinclair/typebox';
import { ProviderErrorCode } from './chat-events';

/** The models this server offers (docs/http-api.md#models). */

export const ModelKind = Type.Union([Type.Literal('chat'), Type.Literal('image')], {
  description: 'chat: usable as a chat or turn model; image: offered to generate_image.',
});
export type ModelKind = Static<typeof ModelKind>;

const ProviderName = Type.String({
  description: 'The provider part of a model name: openai, openai-compatible, anthropic or gemini.',
});

export const ModelEntry = Type.Object(
  {
    id: Type.String({ description: 'provider:modelId, as chats and turns name it.' }),
    provider: ProviderName,
    modelId: Type.String({ description: 'The model as its provider names it.' }),
    kind: ModelKind,
    displayName: Type.Optional(Type.String({ description: 'The name the provider shows.' })),
  },
  { $id: 'ModelEntry' },
);
export type ModelEntry = Static<typeof ModelEntry>;

export const ModelProviderListing = Type.Object(
  {
    provider: ProviderName,
    status: Type.Union([Type.Literal('ok'), Type.Literal('failed'), Type.Literal('unlisted')], {
      description:
        'ok: the provider listed its models; failed: it could not be asked (see error), so only configured models are listed and turns naming its models are not checked; unlisted: the adapter has no model list, as for failed.',
    }),
    /** When the list was fetched (ok) or the fetch failed (failed). */
    fetchedAt: Type.Optional(Type.String({ format: 'date-time' })),
    error: Type.Optional(
      Type.Object({
        code: ProviderErrorCode,
        message: Type.String(),
        status: Type.Optional(Type.Number({ description: "The provider's HTTP status." })),
      }),
    ),
  },
  { $id: 'ModelProviderListing' },
);
export type ModelProviderListing = Static<typeof ModelProviderListing>;

export const ModelsResponse = Type.Object(
  {
    models: Type.Array(ModelEntry),
    providers: Type.Array(ModelProviderListing),
  },
  { $id: 'ModelsResponse' },
);
export type ModelsResponse = Static<typeof ModelsResponse>;
