/**
 * Builds whole tool calls out of streamed OpenAI-style fragments (Chat
 * Completions deltas). Fragments are keyed by `index`, but servers disagree
 * (notes §0.2): the index may be missing, one index may be reused for a
 * different call, and continuation fragments may carry `id: ""` or `name: ""`.
 * Calls are never closed because their arguments happen to parse: only the
 * caller closes them (`finish()`), at the finish chunk, `[DONE]` or the end of
 * the stream.
 */
import type {
  ToolCallArgumentsDeltaEvent,
  ToolCallCompletedEvent,
  ToolCallStartedEvent,
} from '@mango/shared';
import { createToolCallId } from './tool-call-ids';

export interface ToolCallFragment {
  index?: number | null;
  id?: string | null;
  name?: string | null;
  arguments?: string | null;
}

export type AssemblerEvent =
  | ToolCallStartedEvent
  | ToolCallArgumentsDeltaEvent
  | ToolCallCompletedEvent;

export interface ToolCallAssembler {
  /** Feeds one fragment; returns the events it produces (nothing until the call has a name). */
  push(fragment: ToolCallFragment): AssemblerEvent[];
  /** Closes every open call, in the order they started. */
  finish(): AssemblerEvent[];
  /** Calls started but not closed yet (what a cut stream leaves behind). */
  openCalls(): { toolCallId: string; name: string; arguments: string }[];
}

interface PendingCall {
  toolCallId: string;
  /** The id the provider sent, when it sent one. */
  providerId?: string;
  name: string;
  arguments: string;
  started: boolean;
  closed: boolean;
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function createToolCallAssembler(
  createId: () => string = createToolCallId,
): ToolCallAssembler {
  const calls: PendingCall[] = [];
  const byIndex = new Map<number, PendingCall>();
  const byProviderId = new Map<string, PendingCall>();
  let latest: PendingCall | undefined;

  function open(providerId: string | undefined, index: number | undefined): PendingCall {
    const call: PendingCall = {
      toolCallId: providerId && !byProviderId.has(providerId) ? providerId : createId(),
      providerId,
      name: '',
      arguments: '',
      started: false,
      closed: false,
    };
    calls.push(call);
    if (providerId) byProviderId.set(providerId, call);
    if (index !== undefined) byIndex.set(index, call);
    return call;
  }

  function locate(fragment: ToolCallFragment): PendingCall {
    const id = nonEmpty(fragment.id);
    const name = nonEmpty(fragment.name);
    const index = typeof fragment.index === 'number' ? fragment.index : undefined;
    if (id) {
      const known = byProviderId.get(id);
      if (known && !known.closed) {
        if (index !== undefined) byIndex.set(index, known);
        return known;
      }
    }
    const candidate = index !== undefined ? byIndex.get(index) : id ? undefined : latest;
    const differentCall =
      !candidate ||
      candidate.closed ||
      (id !== undefined && candidate.providerId !== undefined && candidate.providerId !== id) ||
      (name !== undefined && candidate.name !== '' && candidate.name !== name);
    if (differentCall) return open(id, index);
    if (id && !candidate.providerId) {
      candidate.providerId = id;
      byProviderId.set(id, candidate);
    }
    return candidate;
  }

  /** Announces a call, releasing in one piece the arguments that arrived before its name. */
  function start(call: PendingCall, events: AssemblerEvent[]): void {
    call.started = true;
    events.push({ type: 'tool_call_started', toolCallId: call.toolCallId, name: call.name });
    if (call.arguments !== '')
      events.push({
        type: 'tool_call_arguments_delta',
        toolCallId: call.toolCallId,
        delta: call.arguments,
      });
  }

  return {
    push(fragment) {
      const call = locate(fragment);
      latest = call;
      const events: AssemblerEvent[] = [];
      const name = nonEmpty(fragment.name);
      if (name && call.name === '') call.name = name;
      const delta = fragment.arguments ?? '';
      call.arguments += delta;
      if (!call.started && call.name !== '') {
        start(call, events);
      } else if (call.started && delta !== '') {
        events.push({ type: 'tool_call_arguments_delta', toolCallId: call.toolCallId, delta });
      }
      return events;
    },
    finish() {
      const events: AssemblerEvent[] = [];
      for (const call of calls) {
        if (call.closed) continue;
        call.closed = true;
        // A call whose name never arrived is still answered (as an unknown tool), never dropped.
        if (!call.started) start(call, events);
        events.push({
          type: 'tool_call_completed',
          toolCallId: call.toolCallId,
          name: call.name,
          arguments: call.arguments,
        });
      }
      byIndex.clear();
      latest = undefined;
      return events;
    },
    openCalls() {
      return calls
        .filter((call) => !call.closed)
        .map(({ toolCallId, name, arguments: text }) => ({ toolCallId, name, arguments: text }));
    },
  };
}
