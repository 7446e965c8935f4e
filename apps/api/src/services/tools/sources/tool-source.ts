/**
 * Where tools come from. A `ToolSource` lists, for one user (and chat), the
 * tools it can serve with each one's state, and runs a call of one of them.
 * The built-in tools are one source (`builtin-tool-source.ts`); each MCP server
 * will be another. The turn's toolset, the capabilities inspector and the
 * settings service all read the same sources through one `ToolCatalog`
 * (`tool-catalog.ts`), so they always agree on what exists.
 */
import type { SavedToolSettingsByName } from '../runtime';
import type { EffectiveToolSettings, RegisteredTool, ToolContext, ToolScope } from '../types';

/** enabled: offered to the model; disabled: switched off in the settings; unavailable: the source cannot serve it now. */
export type ToolState = 'enabled' | 'disabled' | 'unavailable';

export interface ToolSourceInfo {
  /** Stable and unique among the sources: `builtin`, or `mcp:<server id>`. */
  id: string;
  /** `builtin` for the server's own tools, `server` for an MCP server's. */
  kind: 'builtin' | 'server';
  /** For people: "Built-in tools", the MCP server's name. */
  name: string;
}

export interface ToolListingRequest extends ToolScope {
  /** The user's saved tool settings by tool name, read once for every source. */
  saved: SavedToolSettingsByName;
  /** Fires when the listing is no longer wanted (its budget ran out, the turn was cancelled). */
  signal: AbortSignal;
  /** How long the source may take to answer; the catalog stops waiting after it. */
  budgetMs: number;
  /**
   * False: answer from what is known without starting or reaching anything
   * (Settings → Tools lists a server's last known tools). True (a turn, the
   * inspector): connect when needed.
   */
  connect: boolean;
}

/** A source's health, as the capabilities inspector shows it. */
export interface ToolSourceHealth {
  /** `idle | connecting | ready | error | disabled` for an MCP server. */
  state: string;
  /** `ok`, or what is wrong in a word (`error`, `disabled`, `source_timed_out`). */
  health: string;
  reason?: string;
  toolCount?: number | null;
  lastError?: { code: string; message: string; stderrTail?: string; at: string } | null;
}

/** One tool as a source lists it. */
export interface SourcedTool {
  tool: RegisteredTool;
  source: ToolSource;
  /** The user's effective settings of the tool (defaults < saved). */
  settings: EffectiveToolSettings;
  state: ToolState;
  /** Why the tool is not enabled (always present unless it is). */
  reason?: string;
}

export interface ToolSource {
  readonly info: ToolSourceInfo;
  /**
   * The tools this source can serve for the request's user and chat, with
   * their states: synchronously when the source answers from memory (no
   * budget timer is then needed), else a promise raced against the budget.
   */
  listTools(request: ToolListingRequest): SourcedTool[] | Promise<SourcedTool[]>;
  /**
   * Runs one call of a tool this source listed. The caller has checked the
   * tool is enabled and runs this inside the tool's budget and cancel race
   * (`runWithToolBudget`): `context.signal` fires on either.
   */
  execute(tool: SourcedTool, args: unknown, context: ToolContext): Promise<unknown>;
  /** The source's health for this user (an MCP server's connection state), when it has one. */
  health?(userId: string): ToolSourceHealth;
}

export const DISABLED_TOOL_REASON =
  'Switched off for this user in Settings → Tools (PUT /api/settings/tools/:toolName).';

/** A listed tool's state: unavailable (with the source's reason) wins over the user's switch. */
export function describeSourcedTool(
  source: ToolSource,
  tool: RegisteredTool,
  settings: EffectiveToolSettings,
  unavailableReason: string | undefined,
): SourcedTool {
  if (unavailableReason !== undefined)
    return { tool, source, settings, state: 'unavailable', reason: unavailableReason };
  if (!settings.enabled)
    return { tool, source, settings, state: 'disabled', reason: DISABLED_TOOL_REASON };
  return { tool, source, settings, state: 'enabled' };
}

/** A listing entry's unavailable reason, as `describeSourcedTool` was given it. */
function reasonOf(listed: SourcedTool): string | undefined {
  return listed.state === 'unavailable' ? listed.reason : undefined;
}

/**
 * For a source's `listTools`: hands out the same array of the same
 * `SourcedTool` objects while the source lists the same tools with the same
 * settings objects and the same unavailable reasons. Listings are made per
 * request (every Settings → Tools list, every turn), so an unchanged one then
 * costs no objects, and the catalog and the settings list know it by identity.
 * Only a listing whose settings are all frozen is remembered (the shared
 * defaults of `createEffectiveSettingsLookup`): settings merged from a saved
 * row are made afresh per listing and never match again. A remembered listing
 * is frozen, its array and each entry, so a caller cannot change what the
 * next caller gets. The last `keep` listings are remembered (one per kind of
 * user: an admin, a user with roots, one without).
 */
export function createSourcedToolsReuse(
  source: ToolSource,
  keep = 8,
): (
  tools: readonly RegisteredTool[],
  settings: readonly EffectiveToolSettings[],
  reasons: readonly (string | undefined)[],
) => SourcedTool[] {
  /**
   * Each remembered listing with the arrays it was made from, when all three
   * were frozen (a source's shared arrays, handed again while nothing changed).
   */
  const recent: Array<{
    listed: SourcedTool[];
    inputs?: {
      tools: readonly RegisteredTool[];
      settings: readonly EffectiveToolSettings[];
      reasons: readonly (string | undefined)[];
    };
  }> = [];
  const matches = (
    candidate: readonly SourcedTool[],
    tools: readonly RegisteredTool[],
    settings: readonly EffectiveToolSettings[],
    reasons: readonly (string | undefined)[],
  ): boolean => {
    if (candidate.length !== tools.length) return false;
    for (let index = 0; index < candidate.length; index += 1) {
      const listed = candidate[index] as SourcedTool;
      if (
        listed.tool !== tools[index] ||
        listed.settings !== settings[index] ||
        reasonOf(listed) !== reasons[index]
      )
        return false;
    }
    return true;
  };
  return (tools, settings, reasons) => {
    for (const { listed, inputs } of recent) {
      // The very (frozen) arrays it was made from: nothing to compare.
      if (inputs?.tools === tools && inputs.settings === settings && inputs.reasons === reasons)
        return listed;
    }
    for (const made of recent)
      if (matches(made.listed, tools, settings, reasons)) return made.listed;
    const listed = tools.map((tool, index) =>
      describeSourcedTool(source, tool, settings[index] as EffectiveToolSettings, reasons[index]),
    );
    if (!settings.every((one) => Object.isFrozen(one))) return listed;
    for (const entry of listed) Object.freeze(entry);
    const frozenInputs =
      Object.isFrozen(tools) && Object.isFrozen(settings) && Object.isFrozen(reasons);
    recent.unshift({
      listed: Object.freeze(listed) as SourcedTool[],
      ...(frozenInputs ? { inputs: { tools, settings, reasons } } : {}),
    });
    if (recent.length > keep) recent.pop();
    return listed;
  };
}
