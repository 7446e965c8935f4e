/**
 * The settings policy (docs/tool-system.md#settings-policy): pure functions that turn a tool's metadata, a
 * user's stored row and a requested update into effective settings. Requests are
 * validated strictly (`ToolParameterError`); stored values are coerced, never
 * rejected, because there is nobody to hand an error to when a turn reads them.
 */
import { isPlainObject } from '../../is-plain-object';
import { ToolParameterError } from './errors';
import {
  clampIntegerSetting,
  clampNumberSetting,
  getBooleanSetting,
  getPathListSetting,
  getStringListSetting,
  getStringSetting,
} from './stored-setting-readers';
import type {
  EffectiveToolSettings,
  PathListEntry,
  RegisteredTool,
  StoredToolSettings,
  ToolDefinition,
  ToolParameterDescriptor,
  ToolSettingsUpdate,
} from './types';

// The stored-value readers are documented with the policy (docs/tool-system.md#settings-policy), and the
// README's tool recipe imports them from here; they live in their own module.
export {
  clampIntegerSetting,
  clampNumberSetting,
  getBooleanSetting,
  getPathListSetting,
  getStringListSetting,
  getStringSetting,
  type NumberSettingBounds,
} from './stored-setting-readers';

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array (${truncateForMessage(JSON.stringify(value))})`;
  if (typeof value === 'string') return `a string (${truncateForMessage(JSON.stringify(value))})`;
  if (typeof value === 'number') return Number.isFinite(value) ? `the number ${value}` : `${value}`;
  if (typeof value === 'object') return `an object (${truncateForMessage(safeJson(value))})`;
  return `${typeof value} (${String(value)})`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function truncateForMessage(text: string, limit = 80): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

function findDescriptor(tool: RegisteredTool, key: string): ToolParameterDescriptor | undefined {
  return tool.settings.parameterDescriptors.find((descriptor) => descriptor.name === key);
}

function defaultValueOf(tool: RegisteredTool, descriptor: ToolParameterDescriptor): unknown {
  return Object.hasOwn(tool.settings.defaultParameters, descriptor.name)
    ? tool.settings.defaultParameters[descriptor.name]
    : descriptor.defaultValue;
}

/**
 * A copy of a setting's value, so a caller that changes what it was handed
 * cannot change the tool's defaults. Settings hold JSON values (numbers,
 * strings, booleans, lists, path entries), which this copies several times
 * faster than `structuredClone`; every tool call and settings read makes one.
 */
function copySettingValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copySettingValue);
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = copySettingValue(item);
    return copy;
  }
  return value;
}

export function getDefaultToolSettings(tool: RegisteredTool): EffectiveToolSettings {
  const parameters = copySettingValue(tool.settings.defaultParameters) as Record<string, unknown>;
  for (const descriptor of tool.settings.parameterDescriptors) {
    if (!Object.hasOwn(parameters, descriptor.name)) {
      parameters[descriptor.name] = copySettingValue(descriptor.defaultValue);
    }
  }
  return { enabled: tool.settings.enabledByDefault || !tool.settings.canDisable, parameters };
}

function expectation(descriptor: ToolParameterDescriptor): string {
  switch (descriptor.type) {
    case 'number': {
      const kind = descriptor.integer ? 'a whole number' : 'a number';
      if (descriptor.min !== undefined && descriptor.max !== undefined) {
        return `${kind} from ${descriptor.min} to ${descriptor.max}`;
      }
      if (descriptor.min !== undefined) return `${kind} of at least ${descriptor.min}`;
      if (descriptor.max !== undefined) return `${kind} of at most ${descriptor.max}`;
      return kind;
    }
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
    case 'select':
      return `one of ${(descriptor.options ?? []).map((option) => JSON.stringify(option.value)).join(', ')}`;
    case 'string_list':
      return 'an array of strings';
    case 'path_list':
      return 'an array of { "path": string, "enabled": boolean } entries';
  }
}

function refuse(tool: RegisteredTool, descriptor: ToolParameterDescriptor, value: unknown): never {
  throw new ToolParameterError(
    descriptor.name,
    `Setting "${descriptor.name}" of tool "${tool.definition.name}" must be ${expectation(descriptor)}; received ${describeValue(value)}.`,
  );
}

function validateValue(
  tool: RegisteredTool,
  descriptor: ToolParameterDescriptor,
  value: unknown,
): unknown {
  switch (descriptor.type) {
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) refuse(tool, descriptor, value);
      if (descriptor.integer && !Number.isInteger(value)) refuse(tool, descriptor, value);
      if (descriptor.min !== undefined && value < descriptor.min) refuse(tool, descriptor, value);
      if (descriptor.max !== undefined && value > descriptor.max) refuse(tool, descriptor, value);
      return value;
    }
    case 'string':
      if (typeof value !== 'string') refuse(tool, descriptor, value);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') refuse(tool, descriptor, value);
      return value;
    case 'select':
      if (
        typeof value !== 'string' ||
        !(descriptor.options ?? []).some((option) => option.value === value)
      ) {
        refuse(tool, descriptor, value);
      }
      return value;
    case 'string_list':
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
        refuse(tool, descriptor, value);
      }
      return [...value];
    case 'path_list': {
      if (!Array.isArray(value)) refuse(tool, descriptor, value);
      return value.map((entry, index): PathListEntry => {
        const valid =
          isPlainObject(entry) &&
          typeof entry.path === 'string' &&
          entry.path.trim() !== '' &&
          !entry.path.includes('\0') &&
          typeof entry.enabled === 'boolean' &&
          Object.keys(entry).every((key) => key === 'path' || key === 'enabled');
        if (!valid) {
          throw new ToolParameterError(
            descriptor.name,
            `Setting "${descriptor.name}" of tool "${tool.definition.name}" must be ${expectation(descriptor)} with a non-empty path; entry ${index} is ${describeValue(entry)}.`,
          );
        }
        return { path: entry.path as string, enabled: entry.enabled as boolean };
      });
    }
  }
}

/**
 * Validates requested settings by the tool's descriptors: every name must be a
 * known setting and every value of its declared type, range and options.
 * Returns a copy holding only the given keys. Throws `ToolParameterError`.
 */
export function normalizeToolParameters(
  tool: RegisteredTool,
  params: unknown,
): Record<string, unknown> {
  if (!isPlainObject(params)) {
    throw new ToolParameterError(
      'parameters',
      `Settings of tool "${tool.definition.name}" must be an object of setting names to values; received ${describeValue(params)}.`,
    );
  }
  const normalized: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    const descriptor = findDescriptor(tool, key);
    if (!descriptor) {
      const known = tool.settings.parameterDescriptors.map((item) => item.name);
      throw new ToolParameterError(
        key,
        `Tool "${tool.definition.name}" has no setting "${key}". ${known.length > 0 ? `Known settings: ${known.join(', ')}.` : 'It has no settings.'}`,
      );
    }
    normalized[key] = validateValue(tool, descriptor, value);
    const problem = tool.checkParameter?.(key, normalized[key]);
    if (problem !== undefined) {
      throw new ToolParameterError(
        key,
        `Setting "${key}" of tool "${tool.definition.name}": ${problem}`,
      );
    }
  }
  return normalized;
}

/**
 * The three-step merge, defaults < saved < updates. Saved values are coerced (a
 * corrupt value falls back to its default, an out-of-range number is clamped);
 * updates are validated strictly and throw `ToolParameterError`, as does an
 * attempt to disable a tool that cannot be disabled.
 */
export function mergeToolSettings(
  tool: RegisteredTool,
  saved?: StoredToolSettings | null,
  updates?: ToolSettingsUpdate | null,
): EffectiveToolSettings {
  const base = getSafeEffectiveToolSettings(tool, saved);
  if (!updates) return base;
  if (updates.enabled !== undefined && typeof updates.enabled !== 'boolean') {
    throw new ToolParameterError(
      'enabled',
      `"enabled" must be true or false; received ${describeValue(updates.enabled)}.`,
    );
  }
  if (updates.enabled === false && !tool.settings.canDisable) {
    throw new ToolParameterError(
      'enabled',
      `Tool "${tool.definition.name}" cannot be disabled; it is always available.`,
    );
  }
  const validated =
    updates.parameters === undefined ? {} : normalizeToolParameters(tool, updates.parameters);
  return {
    enabled: updates.enabled ?? base.enabled,
    parameters: { ...base.parameters, ...validated },
  };
}

/** Reads a stored parameters value that may be an object, a JSON string or garbage. */
function readStoredParameters(raw: unknown): Record<string, unknown> {
  if (typeof raw === 'string') {
    try {
      return readStoredParameters(JSON.parse(raw));
    } catch {
      return {};
    }
  }
  return isPlainObject(raw) ? raw : {};
}

/** Coerces one stored value by its descriptor, falling back to the default when it cannot. */
function coerceStoredValue(
  descriptor: ToolParameterDescriptor,
  value: unknown,
  fallback: unknown,
): unknown {
  switch (descriptor.type) {
    case 'number':
      return descriptor.integer
        ? clampIntegerSetting(value, {
            min: descriptor.min,
            max: descriptor.max,
            fallback: fallback as number,
          })
        : clampNumberSetting(value, {
            min: descriptor.min,
            max: descriptor.max,
            fallback: fallback as number,
          });
    case 'string':
      return getStringSetting(value, fallback as string);
    case 'boolean':
      return getBooleanSetting(value, fallback as boolean);
    case 'select':
      return getStringSetting(
        value,
        fallback as string,
        (descriptor.options ?? []).map((option) => option.value),
      );
    case 'string_list':
      return getStringListSetting(value, fallback as string[]);
    case 'path_list':
      return getPathListSetting(value, fallback as PathListEntry[]);
  }
}

/**
 * Effective settings from a stored row without ever throwing: corrupt
 * parameters fall back to their defaults (numbers are clamped into range,
 * unknown names dropped) and the row's `enabled` flag is kept, so a tool the
 * user switched off never comes back on because a parameter was bad.
 */
export function getSafeEffectiveToolSettings(
  tool: RegisteredTool,
  saved?: StoredToolSettings | null,
): EffectiveToolSettings {
  const defaults = getDefaultToolSettings(tool);
  const stored = readStoredParameters(saved?.parameters);
  const parameters: Record<string, unknown> = { ...defaults.parameters };
  for (const descriptor of tool.settings.parameterDescriptors) {
    if (Object.hasOwn(stored, descriptor.name)) {
      parameters[descriptor.name] = coerceStoredValue(
        descriptor,
        stored[descriptor.name],
        defaultValueOf(tool, descriptor),
      );
    }
  }
  const enabled = typeof saved?.enabled === 'boolean' ? saved.enabled : defaults.enabled;
  return { enabled: tool.settings.canDisable ? enabled : true, parameters };
}

/** Freezes a settings value and everything in it. */
function freezeSettingValue<T>(value: T): T {
  if (Array.isArray(value)) for (const item of value) freezeSettingValue(item);
  else if (isPlainObject(value)) for (const item of Object.values(value)) freezeSettingValue(item);
  return Object.freeze(value);
}

/**
 * `getSafeEffectiveToolSettings` for tool sources, whose listings are made per
 * request: a tool without a saved row gets its default settings merged once
 * per tool and handed out shared and frozen (the merge, then a copy per
 * listing, were most of a listing's cost). Nothing changes a tool's settings
 * in place; an attempt fails loudly rather than change everyone's defaults.
 */
export function createEffectiveSettingsLookup(): (
  tool: RegisteredTool,
  saved: StoredToolSettings | undefined,
) => EffectiveToolSettings {
  const defaults = new WeakMap<RegisteredTool, EffectiveToolSettings>();
  return (tool, saved) => {
    if (saved) return getSafeEffectiveToolSettings(tool, saved);
    let settings = defaults.get(tool);
    if (!settings) {
      settings = freezeSettingValue(getSafeEffectiveToolSettings(tool, undefined));
      defaults.set(tool, settings);
    }
    return settings;
  };
}

/** The definition a provider sees for these settings (`buildDefinition` where the tool has one). */
export function getToolDefinition(
  tool: RegisteredTool,
  settings: EffectiveToolSettings,
): ToolDefinition {
  if (!tool.buildDefinition) return tool.definition;
  const built = tool.buildDefinition(settings);
  if (built.name !== tool.definition.name) {
    throw new Error(
      `Tool "${tool.definition.name}" built a definition named "${built.name}"; buildDefinition must keep the registered name.`,
    );
  }
  return built;
}

/** Keeps the enabled tools and produces their definitions. Tools without an entry use their defaults. */
export function getToolDefinitionsForTools(
  tools: readonly RegisteredTool[],
  settings?:
    | ReadonlyMap<string, EffectiveToolSettings>
    | Readonly<Record<string, EffectiveToolSettings>>,
): ToolDefinition[] {
  const lookup = (name: string): EffectiveToolSettings | undefined =>
    settings instanceof Map
      ? settings.get(name)
      : (settings as Record<string, EffectiveToolSettings> | undefined)?.[name];
  const definitions: ToolDefinition[] = [];
  for (const tool of tools) {
    const effective = lookup(tool.definition.name) ?? getDefaultToolSettings(tool);
    if (effective.enabled) definitions.push(getToolDefinition(tool, effective));
  }
  return definitions;
}
