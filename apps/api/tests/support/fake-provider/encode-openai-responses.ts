/** Renders a fake turn as an OpenAI Responses stream (`POST /v1/responses`, named SSE events). */
import { argumentsText, type FakeTurn, fragments, type WireFrame } from './fake-turn';

export function encodeOpenAIResponses(
  turn: FakeTurn,
  model: string,
  nextId: () => number,
): WireFrame[] {
  const frames: WireFrame[] = [];
  let sequence = 0;
  const emit = (type: string, payload: Record<string, unknown>, carries?: WireFrame['carries']) => {
    const data = JSON.stringify({ type, sequence_number: sequence++, ...payload });
    frames.push({ text: `event: ${type}\ndata: ${data}\n\n`, carries });
  };
  const size = turn.fragmentSize ?? 6;
  const response = {
    id: `resp_${nextId()}`,
    object: 'response',
    created_at: 1_760_000_000,
    model,
    status: 'in_progress',
    output: [] as unknown[],
    tools: [],
    usage: null,
  };
  emit('response.created', { response });
  emit('response.in_progress', { response });
  const output: unknown[] = [];
  (turn.content ?? []).forEach((content, output_index) => {
    if (content.type === 'text') {
      const item_id = `msg_${nextId()}`;
      emit('response.output_item.added', {
        output_index,
        item: {
          id: item_id,
          type: 'message',
          status: 'in_progress',
          role: 'assistant',
          content: [],
        },
      });
      const position = { item_id, output_index, content_index: 0 };
      emit('response.content_part.added', {
        ...position,
        part: { type: 'output_text', text: '', annotations: [] },
      });
      for (const delta of fragments(content.text, size))
        emit('response.output_text.delta', { ...position, delta, logprobs: [] });
      emit('response.output_text.done', { ...position, text: content.text, logprobs: [] });
      const part = { type: 'output_text', text: content.text, annotations: [] };
      emit('response.content_part.done', { ...position, part });
      const item = {
        id: item_id,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [part],
      };
      emit('response.output_item.done', { output_index, item });
      output.push(item);
    } else if (content.type === 'reasoning') {
      const item_id = `rs_${nextId()}`;
      emit('response.output_item.added', {
        output_index,
        item: { id: item_id, type: 'reasoning', summary: [] },
      });
      const position = { item_id, output_index, summary_index: 0 };
      emit('response.reasoning_summary_part.added', {
        ...position,
        part: { type: 'summary_text', text: '' },
      });
      for (const delta of fragments(content.text, size))
        emit('response.reasoning_summary_text.delta', { ...position, delta });
      emit('response.reasoning_summary_text.done', { ...position, text: content.text });
      const part = { type: 'summary_text', text: content.text };
      emit('response.reasoning_summary_part.done', { ...position, part });
      const item = { id: item_id, type: 'reasoning', summary: [part] };
      emit('response.output_item.done', { output_index, item });
      output.push(item);
    } else {
      const number = nextId();
      const item_id = `fc_${number}`;
      const call_id = content.id ?? `call_${number}`;
      const text = argumentsText(content.arguments);
      const base = { id: item_id, type: 'function_call', call_id, name: content.name };
      emit(
        'response.output_item.added',
        { output_index, item: { ...base, arguments: '', status: 'in_progress' } },
        'tool_call_start',
      );
      for (const delta of fragments(text, size))
        emit(
          'response.function_call_arguments.delta',
          { item_id, output_index, delta, obfuscation: 'pad' },
          'tool_call_arguments',
        );
      emit('response.function_call_arguments.done', {
        item_id,
        output_index,
        name: content.name,
        arguments: text,
      });
      const item = { ...base, arguments: text, status: 'completed' };
      emit('response.output_item.done', { output_index, item });
      output.push(item);
    }
  });
  const usage = turn.usage ?? { inputTokens: 11, outputTokens: 7 };
  const finalUsage = {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
  if (turn.finishReason && turn.finishReason !== 'completed') {
    emit('response.incomplete', {
      response: {
        ...response,
        status: 'incomplete',
        incomplete_details: { reason: turn.finishReason },
        output,
        usage: finalUsage,
      },
    });
  } else {
    emit('response.completed', {
      response: { ...response, status: 'completed', output, usage: finalUsage },
    });
  }
  return frames;
}
