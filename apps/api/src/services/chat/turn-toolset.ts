/**
 * What a turn may call: the definitions announced to the model and how a call
 * runs, built from one catalog listing (every tool source merged). A call of
 * a tool that is not in the listing, switched off or unavailable is refused
 * with its code; the others run through their source inside the tool's time
 * budget and the turn's cancel (`runWithToolBudget`).
 */

import type { ToolDefinition } from '../providers/spec';
import { ToolUnavailableError, UnknownToolError } from '../tools/errors';
import { runWithToolBudget, toolDisabledError } from '../tools/execute';
import { getToolDefinition } from '../tools/settings-policy';
import type { ToolCatalogListing } from '../tools/sources/tool-catalog';
import type { ToolAttachment, ToolCallContext, ToolProgressEvent } from '../tools/types';

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
   * while it runs (its `ToolContext.emit`), `onAttachment` what it attaches
   * (its `ToolContext.attach`).
   */
  execute(
    call: ToolCallRequest,
    signal: AbortSignal,
    onProgress?: (event: ToolProgressEvent) => void,
    onAttachment?: (attachment: ToolAttachment) => void,
  ): Promise<unknown>;
  /** Tools whose calls within one step run one at a time rather than concurrently. */
  runsAlone?(name: string): boolean;
}

export function createTurnToolset(
  listing: ToolCatalogListing,
  /** Who runs the tools and where: everything a call needs except the cancel signal. */
  context: Omit<ToolCallContext, 'signal'>,
): TurnToolset {
  const enabled = listing.tools.filter((listed) => listed.state === 'enabled');
  return {
    definitions: enabled.map((listed) => {
      const { name, description, parameters } = getToolDefinition(listed.tool, listed.settings);
      return { name, description, parameters };
    }),
    async execute(call, signal, onProgress, onAttachment) {
      const listed = listing.get(call.name);
      if (!listed) {
        const names = enabled.map((tool) => tool.tool.definition.name);
        throw new UnknownToolError(
          `There is no tool named "${call.name}". Available tools: ${names.length > 0 ? names.join(', ') : 'none'}.`,
        );
      }
      if (listed.state === 'disabled') throw toolDisabledError(call.name);
      if (listed.state === 'unavailable')
        throw new ToolUnavailableError(
          `Tool "${call.name}" cannot be used now: ${listed.reason ?? 'its source cannot serve it'}. Answer without it.`,
          { details: { reason: listed.reason ?? null } },
        );
      return runWithToolBudget(
        listed.tool,
        listed.settings.parameters,
        {
          ...context,
          signal,
          toolCallId: call.toolCallId,
          ...(onProgress ? { emit: onProgress } : {}),
          ...(onAttachment ? { attach: onAttachment } : {}),
        },
        (toolContext) => listed.source.execute(listed, call.args, toolContext),
      );
    },
    runsAlone: (name) => listing.get(name)?.tool.runsAlone === true,
  };
}
