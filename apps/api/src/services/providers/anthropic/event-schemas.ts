/** The Anthropic Messages stream events the adapter reads, each checked before use. */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { type ChunkValidator, createChunkValidator } from '../shared/chunk-validator';

const MessageStart = Type.Object({
  message: Type.Object({
    usage: Type.Optional(
      Type.Object({
        input_tokens: Type.Optional(Type.Number()),
        output_tokens: Type.Optional(Type.Number()),
        cache_read_input_tokens: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
      }),
    ),
  }),
});

const BlockStart = Type.Object({
  index: Type.Integer(),
  content_block: Type.Object({
    type: Type.String(),
    id: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
  }),
});

const BlockDelta = Type.Object({
  index: Type.Integer(),
  delta: Type.Object({ type: Type.String() }),
});

/** Each known delta kind's own field; unknown kinds (citations, …) are skipped. */
const DELTA_SCHEMAS: Record<string, TSchema> = {
  text_delta: Type.Object({ text: Type.String() }),
  thinking_delta: Type.Object({ thinking: Type.String() }),
  signature_delta: Type.Object({ signature: Type.String() }),
  input_json_delta: Type.Object({ partial_json: Type.String() }),
};

const BlockStop = Type.Object({ index: Type.Integer() });

const MessageDelta = Type.Object({
  delta: Type.Object({ stop_reason: Type.Optional(Type.Union([Type.String(), Type.Null()])) }),
  usage: Type.Optional(
    Type.Union([
      Type.Null(),
      Type.Object({ output_tokens: Type.Optional(Type.Union([Type.Number(), Type.Null()])) }),
    ]),
  ),
});

const SCHEMAS: Record<string, TSchema> = {
  message_start: MessageStart,
  content_block_start: BlockStart,
  content_block_delta: BlockDelta,
  content_block_stop: BlockStop,
  message_delta: MessageDelta,
};

const envelope = createChunkValidator(Type.Object({ type: Type.String() }), 'Anthropic event');
const validators = new Map<string, ChunkValidator<TSchema>>(
  Object.entries(SCHEMAS).map(([type, schema]) => [
    type,
    createChunkValidator(schema, `Anthropic "${type}" event`),
  ]),
);

const deltaValidators = new Map<string, ChunkValidator<TSchema>>(
  Object.entries(DELTA_SCHEMAS).map(([type, schema]) => [
    type,
    createChunkValidator(schema, `Anthropic "${type}"`),
  ]),
);

export function validateAnthropicEvent(event: unknown): string {
  const { type } = envelope(event);
  validators.get(type)?.(event);
  if (type === 'content_block_delta') {
    const { delta } = event as AnthropicBlockDelta;
    deltaValidators.get(delta.type)?.(delta);
  }
  return type;
}

/** A delta's fields after `validateAnthropicEvent` has checked them. */
export type AnthropicDeltaFields = {
  text?: string;
  thinking?: string;
  signature?: string;
  partial_json?: string;
};

export type AnthropicMessageStart = Static<typeof MessageStart>;
export type AnthropicBlockStart = Static<typeof BlockStart>;
export type AnthropicBlockDelta = Static<typeof BlockDelta>;
export type AnthropicBlockStop = Static<typeof BlockStop>;
export type AnthropicMessageDelta = Static<typeof MessageDelta>;
