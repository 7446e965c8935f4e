/** Renders a fake turn as a Gemini `streamGenerateContent?alt=sse` stream (data-only SSE, CRLF). */
import { type FakeTurn, fragments, type WireFrame } from './fake-turn';

/** Gemini sends whole calls with object `args`; text that is not JSON is sent as it is. */
function argsValue(value: string | Record<string, unknown>): unknown {
  if (typeof value !== 'string') return value;
  if (value === '') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function encodeGemini(turn: FakeTurn, model: string, nextId: () => number): WireFrame[] {
  const frames: WireFrame[] = [];
  const quirks = turn.gemini ?? {};
  const size = turn.fragmentSize ?? 6;
  const responseId = `gemini-response-${nextId()}`;
  const chunk = (
    parts: unknown[],
    extra: Record<string, unknown> = {},
    carries?: WireFrame['carries'],
  ) =>
    frames.push({
      text: `data: ${JSON.stringify({
        candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
        modelVersion: model,
        responseId,
      })}\r\n\r\n`,
      carries,
    });
  const callParts: unknown[] = [];
  for (const content of turn.content ?? []) {
    if (content.type === 'text') {
      for (const text of fragments(content.text, size)) chunk([{ text }]);
    } else if (content.type === 'reasoning') {
      for (const text of fragments(content.text, size)) chunk([{ text, thought: true }]);
    } else {
      const functionCall: Record<string, unknown> = { name: content.name };
      const args = argsValue(content.arguments);
      if (args !== undefined) functionCall.args = args;
      if (quirks.includeIds) functionCall.id = content.id ?? `gemini-call-${nextId()}`;
      const part: Record<string, unknown> = { functionCall };
      if (callParts.length === 0 && quirks.thoughtSignature)
        part.thoughtSignature = quirks.thoughtSignature;
      callParts.push(part);
    }
  }
  if (callParts.length > 0) {
    if (quirks.oneCallPerChunk) for (const part of callParts) chunk([part], {}, 'tool_call');
    else chunk(callParts, {}, 'tool_call');
  }
  const usage = turn.usage ?? { inputTokens: 11, outputTokens: 7 };
  chunk([{ text: '' }], { finishReason: turn.finishReason ?? 'STOP' });
  const last = frames.pop() as WireFrame;
  const withUsage = JSON.parse(last.text.slice('data: '.length).trim());
  withUsage.usageMetadata = {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: usage.outputTokens,
    totalTokenCount: usage.inputTokens + usage.outputTokens,
  };
  frames.push({ text: `data: ${JSON.stringify(withUsage)}\r\n\r\n` });
  return frames;
}
