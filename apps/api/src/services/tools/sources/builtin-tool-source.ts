/**
 * The built-in tools as a tool source: every tool of a registry, with the
 * user's settings applied and each tool's own availability check.
 */
import type { ToolRegistry } from '../registry';
import { lookupSavedSettings } from '../runtime';
import { getSafeEffectiveToolSettings } from '../settings-policy';
import { describeSourcedTool, type ToolSource, type ToolSourceInfo } from './tool-source';

export const BUILTIN_SOURCE_INFO: ToolSourceInfo = {
  id: 'builtin',
  kind: 'builtin',
  name: 'Built-in tools',
};

export function createBuiltinToolSource(registry: ToolRegistry): ToolSource {
  const source: ToolSource = {
    info: BUILTIN_SOURCE_INFO,
    async listTools(request) {
      const scope = { userId: request.userId, ...(request.chat ? { chat: request.chat } : {}) };
      return Promise.all(
        registry.list().map(async (tool) => {
          const settings = getSafeEffectiveToolSettings(
            tool,
            lookupSavedSettings(request.saved, tool.definition.name),
          );
          return describeSourcedTool(source, tool, settings, await tool.unavailableReason?.(scope));
        }),
      );
    },
    execute: (listed, args, context) => listed.tool.execute(args, context),
  };
  return source;
}
