/**
 * Settings → Tools forms, drawn from a tool's parameter descriptors alone (no
 * per-tool code): the draft a form edits, what each field shows, and the body
 * of the PUT that saves it. The server checks every value; its 422 names the
 * refused `key`, which the form shows at that field.
 */
import type { ToolParameterDescriptor, ToolSettingsDescriptor } from '@mango/shared';

export interface PathEntry {
  path: string;
  enabled: boolean;
}

/** What a field holds while edited: numbers stay text until saved, so any input can be sent. */
export type DraftValue = string | boolean | string[] | PathEntry[];
export type Draft = Record<string, DraftValue>;

function asPathEntries(value: unknown): PathEntry[] {
  if (!Array.isArray(value)) return [];
  return value.map((entry) => ({
    path: String((entry as PathEntry)?.path ?? ''),
    enabled: (entry as PathEntry)?.enabled !== false,
  }));
}

export function draftValue(descriptor: ToolParameterDescriptor, value: unknown): DraftValue {
  switch (descriptor.type) {
    case 'number':
      return typeof value === 'number' ? String(value) : '';
    case 'boolean':
      return value === true;
    case 'string':
    case 'select':
      return typeof value === 'string' ? value : '';
    case 'string_list':
      return Array.isArray(value) ? value.map(String) : [];
    case 'path_list':
      return asPathEntries(value);
  }
}

export function draftOf(tool: ToolSettingsDescriptor, values = tool.parameters): Draft {
  const draft: Draft = {};
  for (const descriptor of tool.parameterDescriptors)
    draft[descriptor.name] = draftValue(descriptor, values[descriptor.name]);
  return draft;
}

/**
 * A draft value as the API takes it. A number field's text is sent as a number when it reads as
 * one and as the text otherwise, so the server's message explains what is wrong.
 */
export function parameterValue(descriptor: ToolParameterDescriptor, value: DraftValue): unknown {
  switch (descriptor.type) {
    case 'number': {
      const text = String(value).trim();
      const number = Number(text);
      return text !== '' && Number.isFinite(number) ? number : text;
    }
    case 'string_list':
      return (value as string[]).map((item) => item.trim()).filter((item) => item !== '');
    case 'path_list':
      return (value as PathEntry[])
        .map((entry) => ({ path: entry.path.trim(), enabled: entry.enabled }))
        .filter((entry) => entry.path !== '');
    default:
      return value;
  }
}

/** The parameters of a draft that differ from the tool's effective ones (what Save sends). */
export function changedParameters(
  tool: ToolSettingsDescriptor,
  draft: Draft,
): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const descriptor of tool.parameterDescriptors) {
    const value = draft[descriptor.name];
    if (value === undefined) continue;
    const next = parameterValue(descriptor, value);
    const current = parameterValue(
      descriptor,
      draftValue(descriptor, tool.parameters[descriptor.name]),
    );
    if (JSON.stringify(next) !== JSON.stringify(current)) changed[descriptor.name] = next;
  }
  return changed;
}

/** The PUT body that puts a tool back to its defaults (switch and every setting). */
export function resetBody(tool: ToolSettingsDescriptor): {
  enabled: boolean;
  parameters: Record<string, unknown>;
} {
  return { enabled: tool.enabledByDefault, parameters: { ...tool.defaultParameters } };
}

/** A short line under a number field: its range, and whether it takes whole numbers only. */
export function numberHint(descriptor: ToolParameterDescriptor): string {
  const parts: string[] = [];
  if (descriptor.min !== undefined && descriptor.max !== undefined)
    parts.push(`${descriptor.min} to ${descriptor.max}`);
  else if (descriptor.min !== undefined) parts.push(`at least ${descriptor.min}`);
  else if (descriptor.max !== undefined) parts.push(`at most ${descriptor.max}`);
  if (descriptor.integer) parts.push('whole numbers');
  return parts.join(', ');
}

/** Whether the tool's switch can be used, and why not. */
export function switchState(tool: ToolSettingsDescriptor): { disabled: boolean; reason?: string } {
  if (!tool.canDisable && tool.enabled)
    return { disabled: true, reason: 'This tool cannot be switched off.' };
  return { disabled: false };
}
