/**
 * A running call's progress reports (`ToolContext.emit`) as `tool_call_progress`
 * events. A report is the tool's data on its way to a client, so it is checked
 * and copied as JSON; one that is not of the `ToolProgress` shape, or whose
 * data JSON cannot hold, is dropped — progress is advisory and must never fail
 * the call. Reports count only while the call runs: once it is closed (just
 * before its `tool_result`), later ones are dropped, so a call's progress always
 * comes between its `tool_call_completed` and its `tool_result`.
 */
import {
  type ToolCallPart,
  type ToolCallProgressEvent,
  ToolProgress,
  type ToolProgress as ToolProgressValue,
} from '@mango/shared';
import { Value } from '@sinclair/typebox/value';

export interface ToolProgressForwarder {
  /** Hands one report on (what a tool's `context.emit` calls). */
  report(event: ToolProgressValue): void;
  /** The call has ended: later reports are dropped. */
  close(): void;
}

/** A plain-JSON copy of the report, or undefined when it is not one. */
function copyReport(event: unknown): ToolProgressValue | undefined {
  if (!Value.Check(ToolProgress, event)) return undefined;
  try {
    const copy = JSON.parse(JSON.stringify(event)) as unknown;
    return Value.Check(ToolProgress, copy) ? copy : undefined;
  } catch {
    // Data JSON cannot hold (a bigint, a cycle).
    return undefined;
  }
}

export function createToolProgressForwarder(
  call: Pick<ToolCallPart, 'toolCallId' | 'name'>,
  emit: (event: ToolCallProgressEvent) => void,
): ToolProgressForwarder {
  let open = true;
  return {
    report(event) {
      if (!open) return;
      const progress = copyReport(event);
      if (!progress) return;
      try {
        emit({
          type: 'tool_call_progress',
          toolCallId: call.toolCallId,
          name: call.name,
          progress,
        });
      } catch {
        // A listener's failure is the stream's problem, not the tool's.
      }
    },
    close() {
      open = false;
    },
  };
}
