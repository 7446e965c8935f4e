/** Renders a fake turn as an Anthropic Messages stream (`POST /v1/messages`, named SSE events). */
import { argumentsText, type FakeTurn, fragments, type WireFrame } from './fake-turn';

export function encodeAnthropic(turn: FakeTurn, model: string, nextId: () => number): WireFrame[] {
  const frames: WireFrame[] = [];
  const size = turn.fragmentSize ?? 6;
  const emit = (type: string, payload: Record<string, unknown>, carries?: WireFrame['carries']) =>
    frames.push({
      text: `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`,
      carries,
    });
  const usage = turn.usage ?? { inputTokens: 11, outputTokens: 7 };
  emit('message_start', {
    message: {
      id: `msg_${nextId()}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.inputTokens,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  });
  emit('ping', {});
  let hasToolUse = false;
  (turn.content ?? []).forEach((content, index) => {
    if (content.type === 'text') {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const text of fragments(content.text, size))
        emit('content_block_delta', { index, delta: { type: 'text_delta', text } });
    } else if (content.type === 'reasoning') {
      emit('content_block_start', {
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      for (const thinking of fragments(content.text, size))
        emit('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } });
      emit('content_block_delta', {
        index,
        delta: { type: 'signature_delta', signature: content.signature ?? 'sig-thinking' },
      });
    } else {
      hasToolUse = true;
      emit(
        'content_block_start',
        {
          index,
          content_block: {
            type: 'tool_use',
            id: content.id ?? `toolu_${nextId()}`,
            name: content.name,
            input: {},
          },
        },
        'tool_call_start',
      );
      // The real API opens every tool_use with an empty fragment; a no-argument tool sends only that.
      const pieces = ['', ...fragments(argumentsText(content.arguments), size)];
      for (const partial_json of pieces)
        emit(
          'content_block_delta',
          { index, delta: { type: 'input_json_delta', partial_json } },
          partial_json === '' ? undefined : 'tool_call_arguments',
        );
    }
    emit('content_block_stop', { index });
  });
  emit('message_delta', {
    delta: {
      stop_reason: turn.finishReason ?? (hasToolUse ? 'tool_use' : 'end_turn'),
      stop_sequence: null,
    },
    usage: { output_tokens: usage.outputTokens },
  });
  emit('message_stop', {});
  return frames;
}
