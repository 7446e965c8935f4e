/**
 * The built-in tools as a tool source: every tool of a registry, with the
 * user's settings applied and each tool's own availability check.
 */
import { hostAccessUnavailableReason } from '../host-access';
import type { ToolRegistry } from '../registry';
import { lookupSavedSettings } from '../runtime';
import { createEffectiveSettingsLookup } from '../settings-policy';
import type { ToolScope } from '../types';
import { createSourcedToolsReuse, type ToolSource, type ToolSourceInfo } from './tool-source';

export const BUILTIN_SOURCE_INFO: ToolSourceInfo = {
  id: 'builtin',
  kind: 'builtin',
  name: 'Built-in tools',
};

export function createBuiltinToolSource(registry: ToolRegistry): ToolSource {
  const settingsOf = createEffectiveSettingsLookup();
  const source: ToolSource = {
    info: BUILTIN_SOURCE_INFO,
    listTools(request) {
      const scope: ToolScope = { userId: request.userId };
      if (request.chat) scope.chat = request.chat;
      if (request.hostAccess) scope.hostAccess = request.hostAccess;
      const tools = registry.list();
      const settings = tools.map((tool) =>
        settingsOf(tool, lookupSavedSettings(request.saved, tool.definition.name)),
      );
      // Synchronous for tools without an availability check (the common case): listings are
      // made per request, so no promise is made unless a tool needs one.
      let asynchronous = false;
      const reasons = tools.map((tool) => {
        // A system tool the user was granted nowhere is unavailable before its own check runs.
        const reason = hostAccessUnavailableReason(tool, scope) ?? tool.unavailableReason?.(scope);
        if (reason instanceof Promise) asynchronous = true;
        return reason;
      });
      return asynchronous
        ? Promise.all(reasons).then((settled) => reuse(tools, settings, settled))
        : reuse(tools, settings, reasons as (string | undefined)[]);
    },
    execute: (listed, args, context) => listed.tool.execute(args, context),
  };
  // An unchanged listing is handed out again, the same objects (tool-source.ts).
  const reuse = createSourcedToolsReuse(source);
  return source;
}
