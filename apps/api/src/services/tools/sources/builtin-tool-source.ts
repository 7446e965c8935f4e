/**
 * The built-in tools as a tool source: every tool of a registry, with the
 * user's settings applied and each tool's own availability check.
 */
import { hostAccessUnavailableReason } from '../host-access';
import type { ToolRegistry } from '../registry';
import { createListedSettings } from '../runtime';
import type { RegisteredTool, ToolScope } from '../types';
import { createSourcedToolsReuse, type ToolSource, type ToolSourceInfo } from './tool-source';

export const BUILTIN_SOURCE_INFO: ToolSourceInfo = {
  id: 'builtin',
  kind: 'builtin',
  name: 'Built-in tools',
};

type Reason = string | undefined | Promise<string | undefined>;

/**
 * What every listing of one registry array shares (the registry hands out the
 * same array until a tool is registered): which tools have an availability
 * check at all. A listing made per request then does per-tool work only where
 * a tool asks for it.
 */
interface RegistryPlan {
  /** Every tool available: the reasons of a listing nothing made unavailable. */
  noReasons: readonly Reason[];
  /** Tools with their own check (`unavailableReason`). */
  checked: readonly number[];
  /** Tools with their own check or that reach the host (a user granted nowhere cannot use them). */
  checkedWhenGranted: readonly number[];
}

export function createBuiltinToolSource(registry: ToolRegistry): ToolSource {
  const settingsFor = createListedSettings();
  const plans = new WeakMap<readonly RegisteredTool[], RegistryPlan>();
  const planOf = (tools: readonly RegisteredTool[]): RegistryPlan => {
    let plan = plans.get(tools);
    if (!plan) {
      const checked: number[] = [];
      const checkedWhenGranted: number[] = [];
      tools.forEach((tool, index) => {
        if (tool.unavailableReason) checked.push(index);
        if (tool.unavailableReason || tool.reachesHost) checkedWhenGranted.push(index);
      });
      plan = {
        noReasons: Object.freeze(tools.map(() => undefined)),
        checked,
        checkedWhenGranted,
      };
      plans.set(tools, plan);
    }
    return plan;
  };
  const source: ToolSource = {
    info: BUILTIN_SOURCE_INFO,
    listTools(request) {
      const scope: ToolScope = { userId: request.userId };
      if (request.chat) scope.chat = request.chat;
      if (request.hostAccess) scope.hostAccess = request.hostAccess;
      const tools = registry.list();
      const plan = planOf(tools);
      const settings = settingsFor(tools, request.saved);
      // Synchronous for tools without an availability check (the common case): listings are
      // made per request, so no promise is made unless a tool needs one.
      let asynchronous = false;
      let reasons = plan.noReasons;
      const granted = scope.hostAccess?.kind === 'granted';
      for (const index of granted ? plan.checkedWhenGranted : plan.checked) {
        const tool = tools[index] as RegisteredTool;
        // A system tool the user was granted nowhere is unavailable before its own check runs.
        const reason = hostAccessUnavailableReason(tool, scope) ?? tool.unavailableReason?.(scope);
        if (reason === undefined) continue;
        if (reasons === plan.noReasons) reasons = [...plan.noReasons];
        (reasons as Reason[])[index] = reason;
        if (reason instanceof Promise) asynchronous = true;
      }
      return asynchronous
        ? Promise.all(reasons).then((settled) => reuse(tools, settings, settled))
        : reuse(tools, settings, reasons as readonly (string | undefined)[]);
    },
    execute: (listed, args, context) => listed.tool.execute(args, context),
  };
  // An unchanged listing is handed out again, the same objects (tool-source.ts).
  const reuse = createSourcedToolsReuse(source);
  return source;
}
