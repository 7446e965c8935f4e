/**
 * A tool source with a fixed list of tools (test support), standing in for a
 * source other than the built-ins (an MCP server): it can answer slowly, fail
 * to list, or mark tools unavailable, and it records the calls it runs.
 */
import { lookupSavedSettings } from '../../src/services/tools/runtime';
import { getSafeEffectiveToolSettings } from '../../src/services/tools/settings-policy';
import {
  describeSourcedTool,
  type ToolListingRequest,
  type ToolSource,
} from '../../src/services/tools/sources/tool-source';
import type { RegisteredTool } from '../../src/services/tools/types';

export interface StaticToolSourceOptions {
  id?: string;
  name?: string;
  /** How long `listTools` takes (it stops early when its signal fires). */
  listDelayMs?: number;
  /** Makes `listTools` reject with this message. */
  failWith?: string;
  /** Tool name → why it is unavailable. */
  unavailable?: Record<string, string>;
}

export interface StaticToolSource extends ToolSource {
  calls: { name: string; args: unknown }[];
  listings: ToolListingRequest[];
}

export function createStaticToolSource(
  tools: RegisteredTool[],
  options: StaticToolSourceOptions = {},
): StaticToolSource {
  const id = options.id ?? 'mcp:test-server';
  const source: StaticToolSource = {
    info: { id, kind: 'server', name: options.name ?? 'Test server' },
    calls: [],
    listings: [],
    async listTools(request) {
      source.listings.push(request);
      if (options.listDelayMs) {
        await new Promise<void>((resolve) => {
          // A listing asked with a signal that already fired stops at once, as a real source must.
          if (request.signal.aborted) return resolve();
          const timer = setTimeout(resolve, options.listDelayMs);
          request.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      if (options.failWith) throw new Error(options.failWith);
      return tools.map((tool) =>
        describeSourcedTool(
          source,
          tool,
          getSafeEffectiveToolSettings(
            tool,
            lookupSavedSettings(request.saved, tool.definition.name),
          ),
          options.unavailable?.[tool.definition.name],
        ),
      );
    },
    async execute(listed, args, context) {
      source.calls.push({ name: listed.tool.definition.name, args });
      return listed.tool.execute(args, context);
    },
  };
  return source;
}

/** A minimal tool for sources in tests: answers `{ tool, args }`, or waits for its signal. */
export function createEchoTool(
  name: string,
  options: { runsAlone?: boolean; waitForAbort?: boolean; title?: string } = {},
): RegisteredTool {
  return {
    definition: {
      name,
      description: `Echoes its arguments (${name}).`,
      parameters: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: [],
        additionalProperties: false,
      },
    },
    settings: {
      title: options.title ?? name,
      description: 'Echoes its arguments.',
      category: 'system',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {},
      parameterDescriptors: [],
    },
    ...(options.runsAlone ? { runsAlone: true } : {}),
    execute: async (args, context) => {
      if (options.waitForAbort)
        await new Promise((_, reject) =>
          context.signal.addEventListener('abort', () => reject(context.signal.reason)),
        );
      return { tool: name, args };
    },
  };
}
