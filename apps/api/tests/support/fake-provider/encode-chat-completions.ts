/** Renders a fake turn as an OpenAI-compatible Chat Completions stream (data-only SSE, `[DONE]`). */
import { argumentsText, type FakeTurn, fragments, type WireFrame } from './fake-turn';

interface ScriptedCall {
  index: number;
  id: string;
  name: string;
  pieces: string[];
}

export function encodeChatCompletions(
  turn: FakeTurn,
  model: string,
  nextId: () => number,
): WireFrame[] {
  const frames: WireFrame[] = [];
  const quirks = turn.chatCompletions ?? {};
  const size = turn.fragmentSize ?? 6;
  const id = `chatcmpl-${nextId()}`;
  const chunk = (
    choices: unknown[],
    extra: Record<string, unknown> = {},
    carries?: WireFrame['carries'],
  ) =>
    frames.push({
      text: `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_760_000_000, model, system_fingerprint: null, choices, ...extra })}\n\n`,
      carries,
    });
  const delta = (value: Record<string, unknown>, carries?: WireFrame['carries']) =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: null }], {}, carries);

  delta({ role: 'assistant', content: '' });
  const calls: ScriptedCall[] = [];
  for (const content of turn.content ?? []) {
    if (content.type === 'text') {
      for (const piece of fragments(content.text, size)) delta({ content: piece });
    } else if (content.type === 'reasoning') {
      for (const piece of fragments(content.text, size)) delta({ reasoning_content: piece });
    } else {
      const number = nextId();
      calls.push({
        index: quirks.reuseIndex ? 0 : calls.length,
        id: content.id ?? `call_${number}`,
        name: content.name,
        pieces: fragments(argumentsText(content.arguments), size),
      });
    }
  }
  const opening = (call: ScriptedCall) => {
    const entry: Record<string, unknown> = {
      type: 'function',
      function: { name: call.name, arguments: '' },
    };
    if (!quirks.omitIndex) entry.index = call.index;
    if (!quirks.omitIds) entry.id = call.id;
    delta({ tool_calls: [entry] }, 'tool_call_start');
  };
  const continuation = (call: ScriptedCall, piece: string) => {
    const entry: Record<string, unknown> = quirks.emptyContinuationFields
      ? { id: '', type: 'function', function: { name: '', arguments: piece } }
      : { function: { arguments: piece } };
    if (!quirks.omitIndex) entry.index = call.index;
    delta({ tool_calls: [entry] }, 'tool_call_arguments');
  };
  if (quirks.interleave) {
    for (const call of calls) opening(call);
    const longest = Math.max(0, ...calls.map((call) => call.pieces.length));
    for (let position = 0; position < longest; position++)
      for (const call of calls) {
        const piece = call.pieces[position];
        if (piece !== undefined) continuation(call, piece);
      }
  } else {
    for (const call of calls) {
      opening(call);
      for (const piece of call.pieces) continuation(call, piece);
    }
  }
  const finishReason = turn.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
  chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]);
  const usage = turn.usage ?? { inputTokens: 11, outputTokens: 7 };
  chunk([], {
    usage: {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
    },
  });
  frames.push({ text: 'data: [DONE]\n\n' });
  return frames;
}
