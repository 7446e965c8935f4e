/**
 * From a user's saved settings to what a chat turn needs: the enabled tool
 * definitions (for the provider) and the effective settings of each tool.
 * The persistence layer loads the rows; this module only merges them.
 */
import type { ToolRegistry } from './registry';
import {
  createEffectiveSettingsLookup,
  getSafeEffectiveToolSettings,
  getToolDefinition,
} from './settings-policy';
import type {
  EffectiveToolSettings,
  RegisteredTool,
  StoredToolSettings,
  ToolDefinition,
} from './types';

export interface EnabledToolRuntime {
  /** The enabled tools' definitions, built for their settings, in registration order. */
  definitions: ToolDefinition[];
  /** Effective settings of every registered tool, enabled or not, by name. */
  settings: Map<string, EffectiveToolSettings>;
  /** The enabled tools themselves. */
  tools: RegisteredTool[];
}

export type SavedToolSettingsByName =
  | ReadonlyMap<string, StoredToolSettings>
  | Readonly<Record<string, StoredToolSettings | undefined>>;

/** True when the user saved no settings at all (every tool has its defaults). */
export function hasNoSavedSettings(saved: SavedToolSettingsByName): boolean {
  if (saved instanceof Map) return saved.size === 0;
  for (const _ in saved) return false;
  return true;
}

/** One tool's saved settings from either form of `SavedToolSettingsByName`. */
export function lookupSavedSettings(
  saved: SavedToolSettingsByName,
  name: string,
): StoredToolSettings | undefined {
  if (saved instanceof Map) return saved.get(name);
  return Object.hasOwn(saved, name)
    ? (saved as Record<string, StoredToolSettings | undefined>)[name]
    : undefined;
}

/**
 * For a tool source's listings: every listed tool's effective settings for
 * one user's saved settings. A user who saved nothing gets the tools'
 * defaults as one shared, frozen array per tools array (a source hands out
 * the same array while its tools are unchanged), so an unchanged listing is
 * known by its arrays alone (createSourcedToolsReuse).
 */
export function createListedSettings(): (
  tools: readonly RegisteredTool[],
  saved: SavedToolSettingsByName,
) => readonly EffectiveToolSettings[] {
  const settingsOf = createEffectiveSettingsLookup();
  const defaults = new WeakMap<readonly RegisteredTool[], readonly EffectiveToolSettings[]>();
  return (tools, saved) => {
    if (!hasNoSavedSettings(saved)) {
      return tools.map((tool) =>
        settingsOf(tool, lookupSavedSettings(saved, tool.definition.name)),
      );
    }
    let shared = defaults.get(tools);
    if (!shared) {
      shared = Object.freeze(tools.map((tool) => settingsOf(tool, undefined)));
      defaults.set(tools, shared);
    }
    return shared;
  };
}

/** The runtime of tools whose settings are known, `offered` saying which the model gets. */
export function toEnabledToolRuntime(
  entries: Iterable<{ tool: RegisteredTool; settings: EffectiveToolSettings; offered: boolean }>,
): EnabledToolRuntime {
  const runtime: EnabledToolRuntime = { definitions: [], settings: new Map(), tools: [] };
  for (const { tool, settings, offered } of entries) {
    runtime.settings.set(tool.definition.name, settings);
    if (!offered) continue;
    runtime.tools.push(tool);
    runtime.definitions.push(getToolDefinition(tool, settings));
  }
  return runtime;
}

export function getEnabledToolRuntime(
  savedSettings: SavedToolSettingsByName,
  registry: ToolRegistry,
): EnabledToolRuntime {
  return toEnabledToolRuntime(
    registry.list().map((tool) => {
      const settings = getSafeEffectiveToolSettings(
        tool,
        lookupSavedSettings(savedSettings, tool.definition.name),
      );
      return { tool, settings, offered: settings.enabled };
    }),
  );
}
