/**
 * What a turn may call: the definitions announced to the model and how a call
 * runs. The built-in toolset resolves a user's saved settings through
 * `getEnabledToolRuntime` and runs calls through `executeTool` (which checks
 * the tool is enabled, applies its settings and its time budget). Other
 * sources (MCP) can supply their own toolset or be merged into this one.
 */

import type { ToolDefinition } from '../providers/spec';
import { executeTool } from '../tools/execute';
import { defaultToolRegistry, type ToolRegistry } from '../tools/registry';
import { getEnabledToolRuntime, type SavedToolSettingsByName } from '../tools/runtime';
import type { StoredToolSettings, ToolCallContext, ToolProgressEvent } from '../tools/types';

export interface ToolCallRequest {
  toolCallId: string;
  name: string;
  /** Parsed arguments (the loop never executes a call whose JSON did not parse). */
  args: unknown;
}

export interface TurnToolset {
  definitions: ToolDefinition[];
  /**
   * Resolves to the tool's result; rejects with a `ToolError` (anything else
   * counts as `execution_failed`). `onProgress` receives what the tool reports
   * while it runs (its `ToolContext.emit`).
   */
  execute(
    call: ToolCallRequest,
    signal: AbortSignal,
    onProgress?: (event: ToolProgressEvent) => void,
  ): Promise<unknown>;
  /** Tools whose calls within one step run one at a time rather than concurrently. */
  runsAlone?(name: string): boolean;
}

/** Tools that must not run concurrently with themselves (SPEC §10.2). */
export const SEQUENTIAL_TOOLS: ReadonlySet<string> = new Set(['generate_image']);

export interface BuiltinToolsetOptions {
  savedSettings?: SavedToolSettingsByName;
  /** Who runs the tools and where: everything `executeTool` needs except the cancel signal. */
  context: Omit<ToolCallContext, 'signal'>;
  registry?: ToolRegistry;
}

function lookup(saved: SavedToolSettingsByName, name: string): StoredToolSettings | undefined {
  if (saved instanceof Map) return saved.get(name);
  return Object.hasOwn(saved, name)
    ? (saved as Record<string, StoredToolSettings | undefined>)[name]
    : undefined;
}

export function createBuiltinToolset(options: BuiltinToolsetOptions): TurnToolset {
  const registry = options.registry ?? defaultToolRegistry;
  const saved = options.savedSettings ?? {};
  const runtime = getEnabledToolRuntime(saved, registry);
  return {
    definitions: runtime.definitions.map((definition) => ({
      name: definition.name,
      description: definition.description,
      parameters: definition.parameters,
    })),
    execute: (call, signal, onProgress) =>
      executeTool(
        call.name,
        call.args,
        { ...options.context, signal, ...(onProgress ? { emit: onProgress } : {}) },
        lookup(saved, call.name),
        { registry },
      ),
    runsAlone: (name) => SEQUENTIAL_TOOLS.has(name),
  };
}
