/** The parts of a Chat Completions stream chunk the adapter reads, checked before use. */
import { Type } from '@sinclair/typebox';

const OptionalText = Type.Optional(Type.Union([Type.String(), Type.Null()]));

export const ChatCompletionsChunk = Type.Object({
  choices: Type.Optional(
    Type.Array(
      Type.Object({
        delta: Type.Optional(
          Type.Union([
            Type.Null(),
            Type.Object({
              content: OptionalText,
              reasoning_content: OptionalText,
              reasoning: OptionalText,
              tool_calls: Type.Optional(
                Type.Union([
                  Type.Null(),
                  Type.Array(
                    Type.Object({
                      index: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
                      id: OptionalText,
                      function: Type.Optional(
                        Type.Union([
                          Type.Null(),
                          Type.Object({ name: OptionalText, arguments: OptionalText }),
                        ]),
                      ),
                    }),
                  ),
                ]),
              ),
            }),
          ]),
        ),
        finish_reason: OptionalText,
      }),
    ),
  ),
  usage: Type.Optional(
    Type.Union([
      Type.Null(),
      Type.Object({
        prompt_tokens: Type.Optional(Type.Number()),
        completion_tokens: Type.Optional(Type.Number()),
        total_tokens: Type.Optional(Type.Number()),
        completion_tokens_details: Type.Optional(
          Type.Union([
            Type.Null(),
            Type.Object({ reasoning_tokens: Type.Optional(Type.Number()) }),
          ]),
        ),
        prompt_tokens_details: Type.Optional(
          Type.Union([Type.Null(), Type.Object({ cached_tokens: Type.Optional(Type.Number()) })]),
        ),
      }),
    ]),
  ),
});
