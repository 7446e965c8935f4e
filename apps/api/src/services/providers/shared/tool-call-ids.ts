/** Tool call ids the server makes up when a provider sends none (Gemini, some compatible servers). */
import { isPlainObject } from '../../../is-plain-object';

/** A fresh id, unique across calls and turns: `call_` and 24 hex digits. */
export function createToolCallId(): string {
  return `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/**
 * Arguments as an object, for providers whose history needs one (Anthropic
 * `tool_use.input`, Gemini `functionCall.args`). Empty text means no
 * arguments. Text that is not a JSON object — the model's own mistake, already
 * answered with a `validation_failed` result — is replaced by `{}`, because
 * those providers refuse the whole request otherwise.
 */
export function argumentsAsObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** Arguments as JSON text for providers that take a string (OpenAI): valid JSON, else `{}`. */
export function argumentsAsJsonText(text: string): string {
  if (text.trim() === '') return '{}';
  try {
    JSON.parse(text);
    return text;
  } catch {
    return '{}';
  }
}
