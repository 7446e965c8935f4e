/** The Responses stream events the adapter reads, each checked against its shape before use. */
import { type TSchema, Type } from '@sinclair/typebox';
import { type ChunkValidator, createChunkValidator } from '../shared/chunk-validator';

const Usage = Type.Object({
  input_tokens: Type.Number(),
  output_tokens: Type.Number(),
  total_tokens: Type.Optional(Type.Number()),
  input_tokens_details: Type.Optional(
    Type.Union([Type.Null(), Type.Object({ cached_tokens: Type.Optional(Type.Number()) })]),
  ),
  output_tokens_details: Type.Optional(
    Type.Union([Type.Null(), Type.Object({ reasoning_tokens: Type.Optional(Type.Number()) })]),
  ),
});

const FinalResponse = Type.Object({
  response: Type.Object({
    status: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    usage: Type.Optional(Type.Union([Usage, Type.Null()])),
    incomplete_details: Type.Optional(
      Type.Union([
        Type.Null(),
        Type.Object({ reason: Type.Optional(Type.Union([Type.String(), Type.Null()])) }),
      ]),
    ),
    error: Type.Optional(
      Type.Union([
        Type.Null(),
        Type.Object({
          code: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          message: Type.String(),
        }),
      ]),
    ),
  }),
});

const Item = Type.Object({
  output_index: Type.Number(),
  item: Type.Object({
    type: Type.String(),
    id: Type.Optional(Type.String()),
    call_id: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    arguments: Type.Optional(Type.String()),
  }),
});

const TextDelta = Type.Object({ item_id: Type.String(), delta: Type.String() });

const SCHEMAS: Record<string, TSchema> = {
  'response.output_item.added': Item,
  'response.output_item.done': Item,
  'response.function_call_arguments.delta': TextDelta,
  'response.output_text.delta': TextDelta,
  'response.reasoning_summary_text.delta': TextDelta,
  'response.reasoning_text.delta': TextDelta,
  'response.completed': FinalResponse,
  'response.incomplete': FinalResponse,
  'response.failed': FinalResponse,
  error: Type.Object({
    code: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    message: Type.String(),
  }),
};

const envelope = createChunkValidator(Type.Object({ type: Type.String() }), 'Responses event');
const validators = new Map<string, ChunkValidator<TSchema>>(
  Object.entries(SCHEMAS).map(([type, schema]) => [
    type,
    createChunkValidator(schema, `Responses "${type}" event`),
  ]),
);

/** The event's type, after checking the fields the adapter reads for that type. */
export function validateResponsesEvent(event: unknown): string {
  const { type } = envelope(event);
  validators.get(type)?.(event);
  return type;
}

export type ResponsesUsage = import('@sinclair/typebox').Static<typeof Usage>;
export type ResponsesItemEvent = import('@sinclair/typebox').Static<typeof Item>;
export type ResponsesTextDelta = import('@sinclair/typebox').Static<typeof TextDelta>;
export type ResponsesFinalEvent = import('@sinclair/typebox').Static<typeof FinalResponse>;
