/**
 * Turning a tool call's outcome into what the model reads next: parsing the
 * arguments text (invalid JSON is refused with `validation_failed`, never
 * replaced), serialising results (something JSON cannot hold becomes an
 * `execution_failed` result), and error results as `{"error": {code, message, retryable, details?}}`.
 */
import type { AppError } from '../../errors';
import { ToolArgumentError, type ToolError, ToolExecutionError } from '../tools/errors';

export type ParsedArguments = { ok: true; value: unknown } | { ok: false; error: ToolError };

/** Empty text means "no arguments" (Anthropic and Gemini send that for a tool without any). */
export function parseToolCallArguments(text: string): ParsedArguments {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: new ToolArgumentError(
        `The arguments of this call were not valid JSON (${reason}), so the tool was not run. Send the call again with the arguments as one JSON object.`,
        { details: { arguments: text.slice(0, 200) } },
      ),
    };
  }
}

export type SerializedResult = { ok: true; content: string } | { ok: false; error: ToolError };

export function serializeToolResult(value: unknown): SerializedResult {
  if (typeof value === 'string') return { ok: true, content: value };
  if (value === undefined) return { ok: true, content: 'null' };
  try {
    const content = JSON.stringify(value);
    if (content === undefined) throw new TypeError(`a ${typeof value} has no JSON form`);
    return { ok: true, content };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: new ToolExecutionError(
        `The tool ran, but its result could not be serialised as JSON (${reason}). This is a defect of the tool; do not retry the same call.`,
      ),
    };
  }
}

/**
 * What the model reads after a failed call: the error's code, message,
 * whether the same call may work if simply tried again, and its details
 * (the argument that was refused, …).
 */
export function errorResultContent(error: AppError): string {
  return JSON.stringify({ error: error.toJSON() });
}
