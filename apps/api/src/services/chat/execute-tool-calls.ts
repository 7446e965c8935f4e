/**
 * Runs the completed calls of one step: concurrently, except tools that must
 * run alone (one at a time, in order). Each call gets exactly one result, even
 * when its arguments are not JSON (not executed: `validation_failed`), when it
 * fails, times out or is cancelled. The call's part is updated with its status,
 * error code and duration; a `tool_result` event is emitted as each finishes,
 * after the `tool_call_progress` events the tool reported while it ran.
 */
import type {
  ToolCallPart,
  ToolCallProgressEvent,
  ToolResultEvent,
  ToolResultPart,
} from '@mango/shared';
import type { AppError } from '../../errors';
import { asToolError, ToolAbortedError } from '../tools/errors';
import { createToolProgressForwarder } from './tool-call-progress';
import {
  errorResultContent,
  parseToolCallArguments,
  serializeToolResult,
} from './tool-call-results';
import type { TurnToolset } from './turn-toolset';

export interface ExecuteToolCallsOptions {
  toolset: TurnToolset;
  signal: AbortSignal;
  emit: (event: ToolResultEvent | ToolCallProgressEvent) => void;
  now: () => number;
}

/** Records a call's outcome on its part and as a result part and event. */
export function settleToolCall(
  call: ToolCallPart,
  outcome: { content: string } | { error: AppError },
  durationMs: number,
  emit: (event: ToolResultEvent) => void,
): ToolResultPart {
  const isError = 'error' in outcome;
  const content = isError ? errorResultContent(outcome.error) : outcome.content;
  call.durationMs = durationMs;
  if (isError) {
    call.status = outcome.error.code === 'aborted' ? 'aborted' : 'failed';
    call.errorCode = outcome.error.code;
  } else {
    call.status = 'succeeded';
    delete call.errorCode;
  }
  emit({
    type: 'tool_result',
    toolCallId: call.toolCallId,
    name: call.name,
    content,
    isError,
    ...(isError ? { errorCode: outcome.error.code } : {}),
    durationMs,
  });
  return { type: 'tool_result', toolCallId: call.toolCallId, name: call.name, content, isError };
}

async function runOne(
  call: ToolCallPart,
  options: ExecuteToolCallsOptions,
): Promise<ToolResultPart> {
  const { toolset, signal, emit, now } = options;
  const parsed = parseToolCallArguments(call.arguments);
  if (!parsed.ok) return settleToolCall(call, { error: parsed.error }, 0, emit);
  if (signal.aborted)
    return settleToolCall(
      call,
      {
        error: new ToolAbortedError(`The call to "${call.name}" was cancelled before it started.`),
      },
      0,
      emit,
    );
  const started = now();
  const progress = createToolProgressForwarder(call, emit);
  let outcome: { value: unknown } | { error: unknown };
  try {
    outcome = {
      value: await toolset.execute(
        { toolCallId: call.toolCallId, name: call.name, args: parsed.value },
        signal,
        progress.report,
      ),
    };
  } catch (error) {
    outcome = { error };
  } finally {
    // Closed before the result is emitted: no progress of this call may follow its result.
    progress.close();
  }
  // Whole milliseconds: sub-millisecond digits are noise to every reader of the figure.
  const elapsed = Math.max(0, Math.round(now() - started));
  if ('value' in outcome) {
    const serialized = serializeToolResult(outcome.value);
    return serialized.ok
      ? settleToolCall(call, { content: serialized.content }, elapsed, emit)
      : settleToolCall(call, { error: serialized.error }, elapsed, emit);
  }
  const { error } = outcome;
  const toolError =
    signal.aborted && !(error instanceof ToolAbortedError)
      ? new ToolAbortedError(`The call to "${call.name}" was cancelled before it finished.`, {
          cause: error,
        })
      : asToolError(error, call.name);
  return settleToolCall(call, { error: toolError }, elapsed, emit);
}

export async function executeToolCalls(
  calls: readonly ToolCallPart[],
  options: ExecuteToolCallsOptions,
): Promise<ToolResultPart[]> {
  const alone = options.toolset.runsAlone ?? (() => false);
  let queue: Promise<unknown> = Promise.resolve();
  const pending = calls.map((call) => {
    if (!alone(call.name)) return runOne(call, options);
    const run = queue.then(() => runOne(call, options));
    queue = run;
    return run;
  });
  return Promise.all(pending);
}
