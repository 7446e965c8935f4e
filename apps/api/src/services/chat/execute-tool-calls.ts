/**
 * Runs the completed calls of one step: concurrently, except tools that must
 * run alone (one at a time, in order). Each call gets exactly one result, even
 * when its arguments are not JSON (not executed: `validation_failed`), when it
 * fails, times out or is cancelled. The call's part is updated with its status,
 * error code and duration; a `tool_result` event is emitted as each finishes,
 * after the `tool_call_progress` events the tool reported while it ran and the
 * attachments it handed over (docs/tool-system.md#attachments): each is streamed
 * as it comes (`image_generated`, `image_failed`) and an image becomes an
 * `image` part through `onImagePart`, whether the call then succeeds or not.
 */
import type {
  ImageFailedEvent,
  ImageGeneratedEvent,
  ImagePart,
  ToolCallPart,
  ToolCallProgressEvent,
  ToolResultEvent,
  ToolResultPart,
} from '@mango/shared';
import type { AppError } from '../../errors';
import { asToolError, ToolAbortedError } from '../tools/errors';
import { splitToolResult, type ToolAttachment } from '../tools/tool-attachments';
import { createToolProgressForwarder } from './tool-call-progress';
import {
  errorResultContent,
  parseToolCallArguments,
  serializeToolResult,
} from './tool-call-results';
import type { TurnToolset } from './turn-toolset';

export type ToolCallEvent =
  | ToolResultEvent
  | ToolCallProgressEvent
  | ImageGeneratedEvent
  | ImageFailedEvent;

export interface ExecuteToolCallsOptions {
  toolset: TurnToolset;
  signal: AbortSignal;
  emit: (event: ToolCallEvent) => void;
  /** An image a call attached, as the part to keep after the call's `tool_call` part. */
  onImagePart?: (call: ToolCallPart, part: ImagePart) => void;
  now: () => number;
}

interface AttachmentCollector {
  attach(attachment: ToolAttachment): void;
  /** The call has ended: later attachments are dropped. */
  close(): void;
}

/** A call's attachments: each streamed once (by image id or failed index) and kept as a part. */
function collectAttachments(
  call: ToolCallPart,
  options: ExecuteToolCallsOptions,
): AttachmentCollector {
  let open = true;
  const seen = new Set<string>();
  return {
    attach(attachment) {
      if (!open) return;
      const key =
        attachment.type === 'image' ? `image:${attachment.imageId}` : `failed:${attachment.index}`;
      if (seen.has(key)) return;
      seen.add(key);
      const base = { toolCallId: call.toolCallId, name: call.name, index: attachment.index };
      if (attachment.type === 'image_failed') {
        options.emit({
          type: 'image_failed',
          ...base,
          code: attachment.code,
          message: attachment.message,
        });
        return;
      }
      options.onImagePart?.(call, {
        type: 'image',
        url: attachment.url,
        mediaType: attachment.mediaType,
        ...(attachment.alt ? { alt: attachment.alt } : {}),
        imageId: attachment.imageId,
        toolCallId: call.toolCallId,
      });
      options.emit({
        type: 'image_generated',
        ...base,
        imageId: attachment.imageId,
        url: attachment.url,
        mediaType: attachment.mediaType,
      });
    },
    close() {
      open = false;
    },
  };
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
  const attachments = collectAttachments(call, options);
  let outcome: { value: unknown } | { error: unknown };
  try {
    const result = splitToolResult(
      await toolset.execute(
        { toolCallId: call.toolCallId, name: call.name, args: parsed.value },
        signal,
        progress.report,
        attachments.attach,
      ),
    );
    for (const attachment of result.attachments) attachments.attach(attachment);
    outcome = { value: result.value };
  } catch (error) {
    outcome = { error };
  } finally {
    // Closed before the result is emitted: no progress or attachment may follow its result.
    progress.close();
    attachments.close();
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
