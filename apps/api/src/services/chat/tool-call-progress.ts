/**
 * A running call's progress reports (`ToolContext.emit`) as `tool_call_progress`
 * events. A report is the tool's data on its way to a client, so it is checked
 * and copied as JSON; one that is not of the `ToolProgress` shape, or whose
 * data JSON cannot hold, is dropped — progress is advisory and must never fail
 * the call. Reports count only while the call runs: once it is closed (just
 * before its `tool_result`), later ones are dropped, so a call's progress always
 * comes between its `tool_call_completed` and its `tool_result`. Reports are
 * paced (PROGRESS_MIN_INTERVAL_MS, latest wins) and size-capped.
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
  /** The call has ended: a report still waiting goes out now, later ones are dropped. */
  close(): void;
}

/**
 * Reports of one call reach the client at most this often; one that comes
 * sooner waits, replaced by any newer one, so a tool that reports in a tight
 * loop costs the stream ten events a second, and its latest state still
 * arrives (at the latest just before its result).
 */
export const PROGRESS_MIN_INTERVAL_MS = 100;
/** A report whose JSON is larger than this is dropped: progress is a status line, not a payload. */
export const MAX_PROGRESS_REPORT_BYTES = 16 * 1024;

/** A plain-JSON copy of the report, or undefined when it is not one. */
function copyReport(event: unknown): ToolProgressValue | undefined {
  if (!Value.Check(ToolProgress, event)) return undefined;
  try {
    const json = JSON.stringify(event);
    if (Buffer.byteLength(json) > MAX_PROGRESS_REPORT_BYTES) return undefined;
    const copy = JSON.parse(json) as unknown;
    return Value.Check(ToolProgress, copy) ? copy : undefined;
  } catch {
    // Data JSON cannot hold (a bigint, a cycle).
    return undefined;
  }
}

export function createToolProgressForwarder(
  call: Pick<ToolCallPart, 'toolCallId' | 'name'>,
  emit: (event: ToolCallProgressEvent) => void,
  options: { minIntervalMs?: number } = {},
): ToolProgressForwarder {
  const minIntervalMs = options.minIntervalMs ?? PROGRESS_MIN_INTERVAL_MS;
  let open = true;
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let waiting: ToolProgressValue | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = (progress: ToolProgressValue) => {
    lastSentAt = performance.now();
    try {
      emit({ type: 'tool_call_progress', toolCallId: call.toolCallId, name: call.name, progress });
    } catch {
      // A listener's failure is the stream's problem, not the tool's.
    }
  };
  const sendWaiting = () => {
    timer = undefined;
    const progress = waiting;
    waiting = undefined;
    if (progress && open) send(progress);
  };
  return {
    report(event) {
      if (!open) return;
      const progress = copyReport(event);
      if (!progress) return;
      const sinceLast = performance.now() - lastSentAt;
      if (sinceLast >= minIntervalMs && !waiting) {
        send(progress);
        return;
      }
      waiting = progress;
      timer ??= setTimeout(sendWaiting, Math.max(0, minIntervalMs - sinceLast));
    },
    close() {
      if (!open) return;
      clearTimeout(timer);
      sendWaiting();
      open = false;
    },
  };
}
