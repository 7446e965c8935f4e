/**
 * One model call of a turn: forwards the adapter's events and builds the
 * assistant message they describe (text and reasoning runs, tool calls with
 * their final arguments, the usage reported). Calls the stream started but
 * never completed (a cut or a cancel in the middle of one) are kept apart so
 * the loop can answer them. A provider that sends nothing for `idleTimeoutMs`
 * has its request aborted and the step ends with a retryable
 * `provider_timeout` (docs/chat-turns.md#time-limits).
 */
import type {
  AssistantMessage,
  ErrorEvent,
  ProviderStreamEvent,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  TurnStreamEvent,
  TurnUsage,
} from '@mango/shared';
import { linkAbortSignal } from '../../linked-abort-signal';
import type { LanguageModelProvider, ProviderRequest } from '../providers/spec';
import { addUsage } from './turn-summary';

/** How long a provider may send nothing before its request is given up (5 minutes). */
export const DEFAULT_PROVIDER_IDLE_TIMEOUT_MS = 300_000;

export interface ModelStep {
  parts: AssistantMessage['parts'];
  /** Calls the model finished, in order; their parts are in `parts` (status `running`). */
  completedCalls: ToolCallPart[];
  /** Calls started but never completed; also in `parts`. */
  unfinishedCalls: ToolCallPart[];
  /** What the provider reported for this call (absent when it reported nothing). */
  usage?: TurnUsage;
  error?: ErrorEvent;
}

export interface ModelStepOptions {
  /** Silence from the provider (before its first event or between two) that ends the step. */
  idleTimeoutMs?: number;
}

const IDLE = Symbol('idle');

export async function streamModelStep(
  provider: LanguageModelProvider,
  request: ProviderRequest,
  emit: (event: TurnStreamEvent) => void,
  options: ModelStepOptions = {},
): Promise<ModelStep> {
  const parts: AssistantMessage['parts'] = [];
  let usage: TurnUsage | undefined;
  const calls = new Map<string, { part: ToolCallPart; completed: boolean }>();
  let error: ErrorEvent | undefined;
  let sawEnd = false;

  const last = () => parts.at(-1);
  /** A new call part, in the step's parts at its place in the stream. */
  const startCall = (toolCallId: string, name: string) => {
    const part: ToolCallPart = {
      type: 'tool_call',
      toolCallId,
      name,
      arguments: '',
      status: 'running',
      durationMs: 0,
    };
    const call = { part, completed: false };
    calls.set(toolCallId, call);
    parts.push(part);
    return call;
  };
  const handle = (event: ProviderStreamEvent) => {
    switch (event.type) {
      case 'text_delta': {
        const tail = last();
        if (tail?.type === 'text') (tail as TextPart).text += event.delta;
        else parts.push({ type: 'text', text: event.delta });
        break;
      }
      case 'reasoning_delta': {
        let tail = last();
        if (tail?.type !== 'reasoning') {
          tail = { type: 'reasoning', text: '' };
          parts.push(tail);
        }
        const reasoning = tail as ReasoningPart;
        reasoning.text += event.delta;
        if (event.providerMetadata)
          for (const [provider, data] of Object.entries(event.providerMetadata))
            reasoning.providerMetadata = {
              ...reasoning.providerMetadata,
              [provider]: { ...reasoning.providerMetadata?.[provider], ...data },
            };
        break;
      }
      case 'tool_call_started': {
        startCall(event.toolCallId, event.name);
        break;
      }
      case 'tool_call_arguments_delta': {
        const call = calls.get(event.toolCallId);
        if (call) call.part.arguments += event.delta;
        break;
      }
      case 'tool_call_completed': {
        // A completion without a start still counts as a call.
        const call = calls.get(event.toolCallId) ?? startCall(event.toolCallId, event.name);
        call.completed = true;
        call.part.name = event.name;
        call.part.arguments = event.arguments;
        if (event.providerMetadata) call.part.providerMetadata = event.providerMetadata;
        break;
      }
      case 'error':
        error = event;
        break;
      case 'turn_completed':
        sawEnd = true;
        break;
      case 'usage':
        usage ??= { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
        addUsage(usage, event);
        break;
    }
  };

  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_PROVIDER_IDLE_TIMEOUT_MS;
  const idle = new AbortController();
  let lastEventAt = performance.now();
  /**
   * Ends the read in progress when the provider has gone quiet. Each read
   * sets its own: racing every read against one long-lived "idle" promise
   * would leave a reaction on it per event, holding every event (and its
   * text) until the step ends.
   */
  let wakeIdle: (() => void) | undefined;
  // One timer for the whole step, moved on lazily: events only stamp the time.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watch = (delay: number) => {
    timer = setTimeout(() => {
      const quiet = performance.now() - lastEventAt;
      if (quiet < idleTimeoutMs) return watch(idleTimeoutMs - quiet);
      idle.abort();
      wakeIdle?.();
    }, delay);
  };
  watch(idleTimeoutMs);
  // Released when the step ends: the SDK's listener on it must not outlive the step.
  const link = linkAbortSignal([request.signal, idle.signal]);
  const iterator = provider.streamTurn({ ...request, signal: link.signal })[Symbol.asyncIterator]();
  type Read = IteratorResult<ProviderStreamEvent> | typeof IDLE;
  const nextOrIdle = (pending: Promise<IteratorResult<ProviderStreamEvent>>) =>
    new Promise<Read>((resolve, reject) => {
      if (idle.signal.aborted) {
        resolve(IDLE);
        return;
      }
      wakeIdle = () => resolve(IDLE);
      pending.then(resolve, reject);
    });
  try {
    while (true) {
      const pending = iterator.next();
      const next = await nextOrIdle(pending);
      wakeIdle = undefined;
      if (next === IDLE) {
        // The adapter may never settle this read; nobody waits for it any more.
        pending.catch(() => {});
        iterator.return?.()?.catch(() => {});
        break;
      }
      if (next.done) break;
      lastEventAt = performance.now();
      const event = next.value;
      if (event.type === 'error' && idle.signal.aborted) break;
      handle(event);
      // A cancel is reported once, by the loop's `done`, not as a provider error.
      if (!(event.type === 'error' && event.code === 'aborted')) emit(event);
      if (error) break;
    }
  } finally {
    clearTimeout(timer);
    link.release();
  }
  if (idle.signal.aborted && !request.signal?.aborted) {
    error = {
      type: 'error',
      code: 'provider_timeout',
      message: `The model provider sent nothing for ${Math.round(idleTimeoutMs / 1000)} s, so its request was given up. Send the message again to retry.`,
      retryable: true,
      details: { idleTimeoutMs },
    };
    emit(error);
  } else if (!error && !sawEnd && !request.signal?.aborted) {
    // The adapter contract forbids this; treat it as a cut rather than trust a partial step.
    error = {
      type: 'error',
      code: 'stream_interrupted',
      message: 'The model stream ended without completing. Send the message again to continue.',
      retryable: true,
    };
    emit(error);
  }
  const all = [...calls.values()];
  return {
    parts,
    completedCalls: all.filter((call) => call.completed).map((call) => call.part),
    unfinishedCalls: all.filter((call) => !call.completed).map((call) => call.part),
    ...(usage ? { usage } : {}),
    ...(error ? { error } : {}),
  };
}
