/**
 * The one place where tool sources are merged. A listing asks every source at
 * once, each within its own time budget: a source that fails or is too slow is
 * left out and reported, never hiding the others or failing the caller. Two
 * tools of one name are refused: the first source (in the catalog's order, the
 * built-ins first) keeps the name, the later tool is left out and reported.
 */
import { AppError } from '../../../errors';
import { raceTimeout } from '../../../race-timeout';
import type { SavedToolSettingsByName } from '../runtime';
import type { ToolScope } from '../types';
import type { SourcedTool, ToolListingRequest, ToolSource } from './tool-source';

/** How long one source may take to list its tools before the catalog stops waiting. */
export const DEFAULT_SOURCE_BUDGET_MS = 10_000;

export interface ToolCatalogProblem {
  sourceId: string;
  sourceName: string;
  kind: 'source_failed' | 'source_timed_out' | 'name_clash';
  /** For people: what happened and what it means for the listing. */
  message: string;
  /** The clashing name (`name_clash`). */
  toolName?: string;
}

export interface ToolCatalogListing {
  /** Every source this listing asked: the fixed ones, then the user's own (MCP servers). */
  sources: readonly ToolSource[];
  /** Every listed tool, enabled or not, in source order then each source's own order. */
  tools: readonly SourcedTool[];
  get(name: string): SourcedTool | undefined;
  problems: readonly ToolCatalogProblem[];
}

export interface ToolCatalogRequest extends ToolScope {
  saved: SavedToolSettingsByName;
  signal?: AbortSignal;
  /** Per source; `DEFAULT_SOURCE_BUDGET_MS` (or the catalog's own default) when absent. */
  budgetMs?: number;
  /** False: sources answer from what they know and start nothing (`ToolListingRequest.connect`); default true. */
  connect?: boolean;
}

/** Sources that depend on the user (each MCP server the user has), asked on every listing. */
export type UserToolSources = (userId: string) => Promise<readonly ToolSource[]>;

export interface ToolCatalog {
  readonly sources: readonly ToolSource[];
  /** Each source's listing budget when a request names none. */
  readonly budgetMs: number;
  list(request: ToolCatalogRequest): Promise<ToolCatalogListing>;
}

/** A catalog that cannot be built as given (two sources with one id). */
export class ToolCatalogError extends AppError {
  constructor(message: string) {
    super('invalid_configuration', message);
  }
}

type SourceOutcome = { tools: SourcedTool[] } | { problem: ToolCatalogProblem };

/**
 * Lists one source within the budget. A source that answers synchronously
 * (from memory, as the built-ins and a not-connecting MCP listing do) gets no
 * timer and no abort controller: the signal it is handed is made only if it
 * reads it, which keeps a listing per request cheap.
 */
function listOneSource(
  source: ToolSource,
  request: ToolCatalogRequest,
  budgetMs: number,
): SourceOutcome | Promise<SourceOutcome> {
  const { info } = source;
  const parent = request.signal;
  const problem = (kind: ToolCatalogProblem['kind'], what: string): SourceOutcome => ({
    problem: {
      sourceId: info.id,
      sourceName: info.name,
      kind,
      message: `${info.name} ${what}; its tools are left out of this listing.`,
    },
  });
  const failed = (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    return problem('source_failed', `could not list its tools (${reason})`);
  };
  let controller: AbortController | undefined;
  const onParentAbort = () => controller?.abort(parent?.reason);
  const signalOf = () => {
    if (!controller) {
      controller = new AbortController();
      if (parent?.aborted) onParentAbort();
      else parent?.addEventListener('abort', onParentAbort, { once: true });
    }
    return controller.signal;
  };
  let listing: SourcedTool[] | Promise<SourcedTool[]>;
  try {
    const sourceRequest: ToolListingRequest = {
      ...request,
      budgetMs,
      connect: request.connect ?? true,
      get signal() {
        return signalOf();
      },
    };
    listing = source.listTools(sourceRequest);
  } catch (error) {
    return failed(error);
  }
  if (!(listing instanceof Promise)) return { tools: listing };
  const giveUp = () => {
    signalOf();
    controller?.abort(new Error(`listing took longer than ${budgetMs} ms`));
  };
  return raceBudget(listing, budgetMs, giveUp)
    .then(
      (outcome): SourceOutcome =>
        outcome === 'timed_out'
          ? problem('source_timed_out', `did not list its tools within ${budgetMs} ms`)
          : { tools: outcome },
      failed,
    )
    .finally(() => parent?.removeEventListener('abort', onParentAbort));
}

/** The listing, or `timed_out` (after `giveUp`) when the budget ends first. */
async function raceBudget(
  listing: Promise<SourcedTool[]>,
  budgetMs: number,
  giveUp: () => void,
): Promise<SourcedTool[] | 'timed_out'> {
  listing.catch(() => {});
  const outcome = await raceTimeout(listing, budgetMs, 'timed_out' as const);
  if (outcome === 'timed_out') giveUp();
  return outcome;
}

export function createToolCatalog(
  sources: readonly ToolSource[],
  options: { budgetMs?: number; userSources?: UserToolSources } = {},
): ToolCatalog {
  const ids = new Set<string>();
  for (const source of sources) {
    if (ids.has(source.info.id))
      throw new ToolCatalogError(`Two tool sources have the id "${source.info.id}".`);
    ids.add(source.info.id);
  }
  const defaultBudgetMs = options.budgetMs ?? DEFAULT_SOURCE_BUDGET_MS;
  return {
    sources,
    budgetMs: defaultBudgetMs,
    async list(request) {
      const budgetMs = request.budgetMs ?? defaultBudgetMs;
      const problems: ToolCatalogProblem[] = [];
      let asked: readonly ToolSource[] = sources;
      if (options.userSources) {
        try {
          asked = [...sources, ...(await options.userSources(request.userId))];
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          problems.push({
            sourceId: 'mcp',
            sourceName: 'MCP servers',
            kind: 'source_failed',
            message: `The user's MCP servers could not be read (${reason}); their tools are left out of this listing.`,
          });
        }
      }
      const listed = asked.map((source) => listOneSource(source, request, budgetMs));
      const outcomes = listed.some((outcome) => outcome instanceof Promise)
        ? await Promise.all(listed)
        : (listed as SourceOutcome[]);
      const byName = new Map<string, SourcedTool>();
      for (const outcome of outcomes) {
        if ('problem' in outcome) {
          problems.push(outcome.problem);
          continue;
        }
        for (const listed of outcome.tools) {
          const name = listed.tool.definition.name;
          const first = byName.get(name);
          if (!first) {
            byName.set(name, listed);
            continue;
          }
          problems.push({
            sourceId: listed.source.info.id,
            sourceName: listed.source.info.name,
            kind: 'name_clash',
            toolName: name,
            message: `${listed.source.info.name} offers a tool named "${name}", which ${first.source.info.name} already offers; the second one is refused.`,
          });
        }
      }
      return {
        sources: asked,
        tools: [...byName.values()],
        get: (name) => byName.get(name),
        problems,
      };
    },
  };
}

/** The catalog with the user's own sources (their MCP servers) asked after its fixed ones. */
export function withUserSources(catalog: ToolCatalog, userSources: UserToolSources): ToolCatalog {
  return createToolCatalog(catalog.sources, { budgetMs: catalog.budgetMs, userSources });
}
