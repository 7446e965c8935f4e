/** The parts of a Gemini stream chunk the adapter reads, checked before use. */
import { type Static, Type } from '@sinclair/typebox';

export const GeminiPart = Type.Object({
  text: Type.Optional(Type.String()),
  thought: Type.Optional(Type.Boolean()),
  thoughtSignature: Type.Optional(Type.String()),
  functionCall: Type.Optional(
    Type.Object({
      id: Type.Optional(Type.String()),
      name: Type.Optional(Type.String()),
      // An object as documented; a string is accepted as raw argument text (some proxies send one).
      args: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.String()])),
    }),
  ),
});
export type GeminiPart = Static<typeof GeminiPart>;

export const GeminiChunk = Type.Object({
  candidates: Type.Optional(
    Type.Array(
      Type.Object({
        content: Type.Optional(Type.Object({ parts: Type.Optional(Type.Array(GeminiPart)) })),
        finishReason: Type.Optional(Type.String()),
      }),
    ),
  ),
  usageMetadata: Type.Optional(
    Type.Object({
      promptTokenCount: Type.Optional(Type.Number()),
      candidatesTokenCount: Type.Optional(Type.Number()),
      totalTokenCount: Type.Optional(Type.Number()),
      thoughtsTokenCount: Type.Optional(Type.Number()),
      cachedContentTokenCount: Type.Optional(Type.Number()),
    }),
  ),
  promptFeedback: Type.Optional(Type.Object({ blockReason: Type.Optional(Type.String()) })),
});
export type GeminiChunk = Static<typeof GeminiChunk>;
