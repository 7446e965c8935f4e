/**
 * The turn loop (docs/chat-turns.md#the-loop). Calls the model, runs the tool calls of each
 * step and feeds the results back, until the model answers without calling a
 * tool. The decision to continue is "the step has tool calls", never the finish
 * reason. After `maxIterations` model calls that kept calling tools, the model
 * is asked once more with tools still declared and `tool_choice: none`, and
 * the turn ends with an `iteration_limit` event. Every call gets a result —
 * failed, unknown, disabled, cancelled or cut off — so the conversation can
 * always continue. Provider failures end the turn with their coded `error`
 * event, keeping everything produced before it. `checkpoint` lets the caller
 * store the turn as it goes: once a step's model message is complete (when
 * its tools are still running `checkpointGraceMs` later; tools that finish
 * sooner are stored with their results) and once its results are in. The
 * results are stored while the next model call starts, not before it: that
 * call needs nothing from the database, and a save waited for there delayed
 * every step of every turn by the save's turn in the event loop (under load,
 * a few milliseconds per step). The new step's events are held back until
 * the save is done, so whoever sees them can rely on the earlier steps being
 * stored (a crash still loses at most the step in progress). The save is
 * awaited when the call ends; one that fails aborts the call, its events are
 * dropped, and the turn ends.
 */

import type {
  AssistantMessagePart,
  ConversationMessage,
  ErrorEvent,
  ImagePart,
  ToolCallPart,
  ToolResultPart,
  TurnStatus,
  TurnStreamEvent,
} from '@mango/shared';
import { AppError } from '../../errors';
import { linkAbortSignal } from '../../linked-abort-signal';
import { raceTimeout } from '../../race-timeout';
import type { LanguageModelProvider } from '../providers/spec';
import { ToolAbortedError } from '../tools/errors';
import { executeToolCalls, settleToolCall } from './execute-tool-calls';
import { streamModelStep } from './stream-model-step';
import type { TurnToolset } from './turn-toolset';

export const DEFAULT_MAX_ITERATIONS = 25;
/**
 * How long a step's tools may run before its model message is stored on its
 * own. Quick tools (most calls) are stored with their results in one
 * checkpoint; a slow one (a build, a download) has its call stored while it
 * runs, so a crash then keeps the model's message.
 */
export const DEFAULT_CHECKPOINT_GRACE_MS = 250;
export const MAX_ITERATIONS_LIMIT = 1000;

export interface RunChatTurnOptions {
  provider: LanguageModelProvider;
  /** The provider's model id. */
  model: string;
  system?: string;
  /** The conversation including the new user message. */
  history: readonly ConversationMessage[];
  toolset: TurnToolset;
  /** Model calls that may use tools (1–1000, default 25); one forced final answer may follow. */
  maxIterations?: number;
  signal?: AbortSignal;
  maxOutputTokens?: number;
  onEvent: (event: TurnStreamEvent) => void;
  /**
   * Called with everything the turn has added so far (the same list each time,
   * grown, with tool calls updated as they finish; it must copy what it keeps
   * before its first `await`). Calls never overlap. A step's model message is
   * awaited before its tools' results are stored; the results' checkpoint runs
   * while the next model call starts (whose events `onEvent` gets only once it
   * resolved) and is awaited when that call ends, always before `runChatTurn`
   * settles. A rejection aborts the model call running beside it, drops that
   * call's events and ends the turn by rejecting `runChatTurn`.
   */
  checkpoint?: (messages: readonly ConversationMessage[]) => Promise<void>;
  /**
   * A step's model message is checkpointed before its results only when its
   * tools are still running this long after they start (default
   * `DEFAULT_CHECKPOINT_GRACE_MS`; 0: always, before they start).
   */
  checkpointGraceMs?: number;
  /** Silence from the provider that ends a model call with `provider_timeout` (default 5 minutes). */
  providerIdleTimeoutMs?: number;
  now?: () => number;
}

export interface ChatTurnResult {
  status: TurnStatus;
  /** Model calls made. */
  iterations: number;
  /** What the turn added to the conversation: assistant and tool messages, in order. */
  messages: ConversationMessage[];
  error?: ErrorEvent;
}

export class TurnOptionsError extends AppError {
  constructor(message: string, field: string) {
    super('validation_failed', message, { details: { field } });
  }
}

export function resolveMaxIterations(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_ITERATIONS;
  if (!Number.isInteger(value) || value < 1 || value > MAX_ITERATIONS_LIMIT)
    throw new TurnOptionsError(
      `maxIterations must be a whole number from 1 to ${MAX_ITERATIONS_LIMIT}; got ${value}.`,
      'maxIterations',
    );
  return value;
}

/**
 * Keeps an image a call attached in the step's message: after the call's
 * `tool_call` part and the images it attached before (docs/tool-system.md#attachments).
 */
export function insertImagePart(
  parts: AssistantMessagePart[],
  call: ToolCallPart,
  image: ImagePart,
): void {
  let at = parts.indexOf(call);
  if (at === -1) {
    parts.push(image);
    return;
  }
  at++;
  while (at < parts.length) {
    const next = parts[at] as AssistantMessagePart;
    if (next.type !== 'image' || next.toolCallId !== call.toolCallId) break;
    at++;
  }
  parts.splice(at, 0, image);
}

const notRun = (why: string) => ({
  error: new ToolAbortedError(`This call was not run: ${why}`),
});

/** A step's results being stored while the next model call runs. */
interface BackgroundSave {
  write: Promise<void>;
  /** Aborted with the save's error when it fails. */
  failed: AbortSignal;
}

/** Starts a checkpoint; a failure aborts `failed`, which stops the model call running beside it. */
function saveInBackground(
  checkpoint: NonNullable<RunChatTurnOptions['checkpoint']>,
  messages: readonly ConversationMessage[],
): BackgroundSave {
  const failure = new AbortController();
  const write = checkpoint(messages).catch((error: unknown) => {
    failure.abort(error);
    throw error;
  });
  // Awaited once the next model call ends; until then a rejection must not count as unhandled.
  write.catch(() => {});
  return { write, failed: failure.signal };
}

/**
 * A step's events, held back while the previous step's results are being
 * stored and passed on in order once they are; dropped if the save fails.
 */
function emitOnceStored(
  saving: BackgroundSave,
  emit: (event: TurnStreamEvent) => void,
): (event: TurnStreamEvent) => void {
  let held: TurnStreamEvent[] | undefined = [];
  // Registered before the loop awaits the write, so it runs first.
  saving.write.then(
    () => {
      const events = held ?? [];
      held = undefined;
      for (const event of events) emit(event);
    },
    () => {
      held = undefined;
    },
  );
  return (event) => {
    if (saving.failed.aborted) return;
    if (held) held.push(event);
    else emit(event);
  };
}

export async function runChatTurn(options: RunChatTurnOptions): Promise<ChatTurnResult> {
  const maxIterations = resolveMaxIterations(options.maxIterations);
  const now = options.now ?? performance.now.bind(performance);
  const signal = options.signal ?? new AbortController().signal;
  const emit = options.onEvent;
  const conversation: ConversationMessage[] = [...options.history];
  const added: ConversationMessage[] = [];
  let iterations = 0;

  const record = (message: ConversationMessage) => {
    if (message.parts.length === 0) return;
    conversation.push(message);
    added.push(message);
  };
  const answerAll = (calls: ToolCallPart[], why: string): ToolResultPart[] =>
    calls.map((call) => settleToolCall(call, notRun(why), 0, emit));
  const checkpointGraceMs = options.checkpointGraceMs ?? DEFAULT_CHECKPOINT_GRACE_MS;
  /**
   * Waits for the tools up to the grace; when they are still running then,
   * checkpoints the model message while they go on and returns that write
   * (awaited once they end, so a failure still ends the turn).
   */
  const checkpointIfSlow = async (running: Promise<unknown>) => {
    const checkpoint = options.checkpoint;
    if (!checkpoint) return undefined;
    const slow = await raceTimeout(
      running.then(() => false),
      checkpointGraceMs,
      true,
    );
    if (!slow) return undefined;
    const write = checkpoint(added);
    // Awaited after the tools; until then a rejection must not count as unhandled.
    write.catch(() => {});
    return write;
  };
  const finish = (status: TurnStatus, error?: ErrorEvent): ChatTurnResult => {
    emit({ type: 'done', status, iterations });
    return { status, iterations, messages: added, ...(error ? { error } : {}) };
  };

  /** The last step's results, stored while the next model call runs. */
  let saving: BackgroundSave | undefined;

  while (true) {
    const forced = iterations >= maxIterations;
    iterations++;
    // A failed save stops the model call running beside it (released with the step).
    const link = saving ? linkAbortSignal([signal, saving.failed]) : undefined;
    const step = await streamModelStep(
      options.provider,
      {
        model: options.model,
        ...(options.system ? { system: options.system } : {}),
        messages: conversation,
        tools: options.toolset.definitions,
        toolChoice: forced ? 'none' : 'auto',
        signal: link?.signal ?? signal,
        ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
      },
      saving ? emitOnceStored(saving, emit) : emit,
      options.providerIdleTimeoutMs ? { idleTimeoutMs: options.providerIdleTimeoutMs } : {},
    ).finally(() => link?.release());
    // The previous step's results are stored before anything of this step is.
    await saving?.write;
    record({ role: 'assistant', parts: step.parts, ...(step.usage ? { usage: step.usage } : {}) });

    if (step.error || signal.aborted) {
      const why = signal.aborted
        ? 'the turn was cancelled.'
        : `the model's response failed (${step.error?.code}) before the tool could run.`;
      record({
        role: 'tool',
        parts: answerAll([...step.completedCalls, ...step.unfinishedCalls], why),
      });
      return signal.aborted ? finish('cancelled') : finish('error', step.error);
    }
    if (step.completedCalls.length === 0) {
      if (!forced) return finish('completed');
      break;
    }
    if (forced) {
      // The model called tools although told not to (some servers ignore tool_choice).
      record({
        role: 'tool',
        parts: answerAll(
          step.completedCalls,
          `the iteration limit (${maxIterations}) was reached.`,
        ),
      });
      break;
    }
    if (checkpointGraceMs <= 0) await options.checkpoint?.(added);
    const running = executeToolCalls(step.completedCalls, {
      toolset: options.toolset,
      signal,
      emit,
      onImagePart: (call, image) => insertImagePart(step.parts, call, image),
      now,
    });
    const early = checkpointGraceMs > 0 ? await checkpointIfSlow(running) : undefined;
    const results = await running;
    await early;
    record({ role: 'tool', parts: results });
    if (signal.aborted) return finish('cancelled');
    saving = options.checkpoint ? saveInBackground(options.checkpoint, added) : undefined;
  }
  emit({
    type: 'iteration_limit',
    maxIterations,
    message: `The turn reached its limit of ${maxIterations} model calls; the model was asked for a final answer without tools.`,
  });
  return finish('iteration_limit');
}
