/**
 * The script of one model call answered by the fake provider server: what the
 * model "says" (provider-neutral), how it is fragmented, the provider quirks to
 * reproduce, and an optional fault. Each provider encoder renders it in that
 * provider's real wire format.
 */
import type { ProviderId } from '../../../src/services/providers/spec';

/** The fake speaks the wire format of each adapter the server has. */
export type FakeProviderKind = ProviderId;

export type FakeContent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string; signature?: string }
  | {
      type: 'tool_call';
      name: string;
      /** JSON text (may be invalid on purpose) or a value to serialise. */
      arguments: string | Record<string, unknown>;
      /** Overrides the generated call id. */
      id?: string;
    };

export type FakeFault =
  /** Answer with this HTTP status and the provider's error body instead of a stream. */
  | { type: 'http_error'; status: number; message?: string; retryAfterSeconds?: number }
  /** Send the first `afterFrames` frames, then keep the connection open without a word. */
  | { type: 'hang'; afterFrames?: number }
  /**
   * Drop the connection: after the first tool-call argument fragment (for
   * Gemini, halfway through the frame carrying the call), or after N frames.
   * The drop waits for `when` (default: 50 ms), because a client that receives
   * data and the close in one read may discard that data; tests that need the
   * frames before the cut delivered resolve `when` once they have seen them.
   */
  | { type: 'cut'; at: 'mid_tool_call' | number; when?: Promise<unknown> }
  /** Insert a frame whose data is not JSON at frame position `at` (default 2). */
  | { type: 'malformed_chunk'; at?: number }
  /** Insert a frame of valid JSON that is not the documented shape. */
  | { type: 'invalid_chunk'; at?: number };

export interface ChatCompletionsQuirks {
  /** Tool-call deltas without `index` (old Ollama). */
  omitIndex?: boolean;
  /** Every call uses index 0, told apart only by a new id. */
  reuseIndex?: boolean;
  /** Continuation deltas carry `id: ""` and `function.name: ""`. */
  emptyContinuationFields?: boolean;
  /** No ids at all. */
  omitIds?: boolean;
  /** Parallel calls' fragments alternate instead of following each other. */
  interleave?: boolean;
}

export interface GeminiQuirks {
  /** Send `functionCall.id` (newer models do; most recordings have none). */
  includeIds?: boolean;
  /** One chunk per call instead of all calls in one chunk. */
  oneCallPerChunk?: boolean;
  /** A thought signature on the first function call part (as Gemini 3 sends). */
  thoughtSignature?: string;
}

export interface FakeTurn {
  content?: FakeContent[];
  /** A recorded stream body, sent as it is instead of rendering `content` (fixture replay). */
  raw?: string;
  /** Split text and argument strings into fragments of this many characters (default 6). */
  fragmentSize?: number;
  /** The provider's raw finish/stop reason, overriding the natural one. */
  finishReason?: string;
  usage?: { inputTokens: number; outputTokens: number };
  fault?: FakeFault;
  chatCompletions?: ChatCompletionsQuirks;
  gemini?: GeminiQuirks;
  /** Write every frame in two TCP writes split at an awkward byte (inside a UTF-8 character when there is one). */
  splitWrites?: boolean;
  /**
   * Pause between frames: frame N goes out N × this after the first, on that
   * schedule however late the fake's own timers fire.
   */
  frameDelayMs?: number;
}

/** One SSE frame on the wire, with what it carries (used to place faults). */
export interface WireFrame {
  text: string;
  carries?: 'tool_call_start' | 'tool_call_arguments' | 'tool_call';
}

export function argumentsText(value: string | Record<string, unknown>): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Splits by code points into pieces of `size` characters; an empty string gives no pieces. */
export function fragments(text: string, size: number): string[] {
  const characters = [...text];
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += Math.max(1, size))
    pieces.push(characters.slice(start, start + Math.max(1, size)).join(''));
  return pieces;
}

/** Scripting shorthands. */
export const say = (text: string): FakeTurn => ({ content: [{ type: 'text', text }] });
export const callTool = (
  name: string,
  args: string | Record<string, unknown> = {},
  extra: Partial<FakeTurn> = {},
): FakeTurn => ({ content: [{ type: 'tool_call', name, arguments: args }], ...extra });
