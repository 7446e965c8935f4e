/**
 * A generated-load script for the fake provider (test support, benches): every
 * turn is `steps` model calls, each but the last calling one tool, the last
 * answering in text. The step is read from the request itself (how many tool
 * results it already carries), so any number of turns can run at once, and a
 * request replayed as it is gets the same answer. A conversation that contains
 * `holdMarker` gets its final answer started and then held open (the turn stays
 * running until it is cancelled), for measuring running turns.
 */
import type { FakeResponder, RecordedRequest } from './fake-provider-server';
import type { FakeProviderKind } from './fake-turn';

export interface ToolStepScript {
  /** Model calls per turn (at least 1); the last answers in text. */
  steps: number;
  tool: string;
  arguments?: Record<string, unknown>;
  /** Text that, anywhere in the request, makes the final answer hang after its first words. */
  holdMarker?: string;
  /** Characters per streamed fragment (default 64: one fragment per short string). */
  fragmentSize?: number;
}

export const FINAL_ANSWER = 'All steps done.';

/** Frames up to and including the first text fragment of a one-fragment answer, per wire format. */
const FRAMES_TO_FIRST_TEXT: Record<FakeProviderKind, number> = {
  'openai-compatible': 2, // role, content
  openai: 5, // created, in_progress, output_item.added, content_part.added, output_text.delta
  anthropic: 4, // message_start, ping, content_block_start, content_block_delta
  gemini: 1, // the text chunk
};

/** How many tool results a request already carries, in any provider's wire format. */
export function answeredToolSteps(request: RecordedRequest): number {
  return toolResultsIn(JSON.stringify(request.body));
}

/** The same, from the request body's JSON text. */
function toolResultsIn(bodyText: string): number {
  return (
    bodyText.match(/"function_call_output"|"role":"tool"|"tool_result"|"functionResponse"/g) ?? []
  ).length;
}

export function createToolStepResponder(script: ToolStepScript): FakeResponder {
  const fragmentSize = script.fragmentSize ?? 64;
  return (request) => {
    // Serialised once for both questions: under generated load the fake's time is the bench's.
    const bodyText = JSON.stringify(request.body);
    const done = toolResultsIn(bodyText);
    if (done + 1 < script.steps)
      return {
        content: [{ type: 'tool_call', name: script.tool, arguments: script.arguments ?? {} }],
        fragmentSize,
      };
    const held = script.holdMarker !== undefined && bodyText.includes(script.holdMarker);
    return {
      content: [{ type: 'text', text: FINAL_ANSWER }],
      fragmentSize,
      // The first words, then silence until the client goes away.
      ...(held
        ? { fault: { type: 'hang', afterFrames: FRAMES_TO_FIRST_TEXT[request.provider] } as const }
        : {}),
    };
  };
}
