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
import type { HostAccess, ToolChatScope, ToolScope } from '../types';
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

/** The user's own sources when they are known without reading anything (in memory), else undefined. */
export type KnownUserToolSources = (userId: string) => readonly ToolSource[] | undefined;

export interface ToolCatalog {
  readonly sources: readonly ToolSource[];
  /** Each source's listing budget when a request names none. */
  readonly budgetMs: number;
  list(request: ToolCatalogRequest): Promise<ToolCatalogListing>;
  /**
   * `list` without reading the user's own sources: undefined when they are
   * not known in memory. Synchronous when every source answers from memory
   * (a listing per request then makes no promise at all), else a promise.
   */
  listKnown(
    request: ToolCatalogRequest,
  ): ToolCatalogListing | Promise<ToolCatalogListing> | undefined;
}

/** A catalog that cannot be built as given (two sources with one id). */
export class ToolCatalogError extends AppError {
  constructor(message: string) {
    super('invalid_configuration', message);
  }
}

type SourceOutcome = { tools: SourcedTool[] } | { problem: ToolCatalogProblem };

/**
 * What one source is asked: the catalog's request, the budget, and a signal
 * made only if the source reads it (with the parent's abort forwarded to it).
 * A class rather than a spread object with a getter: a listing is made per
 * request, and the class's shape is built once.
 */
class SourceListingRequest implements ToolListingRequest {
  readonly userId: string;
  readonly chat?: ToolChatScope;
  readonly hostAccess?: HostAccess;
  readonly saved: SavedToolSettingsByName;
  readonly budgetMs: number;
  readonly connect: boolean;
  readonly #parent: AbortSignal | undefined;
  #controller: AbortController | undefined;

  constructor(request: ToolCatalogRequest, budgetMs: number) {
    this.userId = request.userId;
    if (request.chat) this.chat = request.chat;
    if (request.hostAccess) this.hostAccess = request.hostAccess;
    this.saved = request.saved;
    this.budgetMs = budgetMs;
    this.connect = request.connect ?? true;
    this.#parent = request.signal;
  }

  get signal(): AbortSignal {
    return this.#controllerOf().signal;
  }

  /** Aborts the source's signal: its budget ran out. */
  giveUp(reason: Error): void {
    this.#controllerOf().abort(reason);
  }

  #controllerOf(): AbortController {
    if (!this.#controller) {
      this.#controller = new AbortController();
      const parent = this.#parent;
      if (parent?.aborted) this.#onParentAbort();
      else parent?.addEventListener('abort', this.#onParentAbort, { once: true });
    }
    return this.#controller;
  }

  readonly #onParentAbort = () => this.#controller?.abort(this.#parent?.reason);

  /** Stops listening to the parent's signal once the source has answered. */
  release(): void {
    this.#parent?.removeEventListener('abort', this.#onParentAbort);
  }
}

function sourceProblem(
  source: ToolSource,
  kind: ToolCatalogProblem['kind'],
  what: string,
): SourceOutcome {
  const { info } = source;
  return {
    problem: {
      sourceId: info.id,
      sourceName: info.name,
      kind,
      message: `${info.name} ${what}; its tools are left out of this listing.`,
    },
  };
}

function sourceFailed(source: ToolSource, error: unknown): SourceOutcome {
  const reason = error instanceof Error ? error.message : String(error);
  return sourceProblem(source, 'source_failed', `could not list its tools (${reason})`);
}

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
  const sourceRequest = new SourceListingRequest(request, budgetMs);
  let listing: SourcedTool[] | Promise<SourcedTool[]>;
  try {
    listing = source.listTools(sourceRequest);
  } catch (error) {
    return sourceFailed(source, error);
  }
  if (!(listing instanceof Promise)) return { tools: listing };
  const giveUp = () => sourceRequest.giveUp(new Error(`listing took longer than ${budgetMs} ms`));
  return raceBudget(listing, budgetMs, giveUp)
    .then(
      (outcome): SourceOutcome =>
        outcome === 'timed_out'
          ? sourceProblem(
              source,
              'source_timed_out',
              `did not list its tools within ${budgetMs} ms`,
            )
          : { tools: outcome },
      (error: unknown) => sourceFailed(source, error),
    )
    .finally(() => sourceRequest.release());
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

/**
 * Listings are made per request. While every source hands out the very same
 * remembered (frozen) array (`createSourcedToolsReuse`), the merge is the
 * same too, and the listing made from them last is handed out again: no
 * name map, no arrays, and the same `tools` array for the settings list to
 * know by identity. Looked up by the last source's array (a user's own MCP
 * server, or the built-ins for a user without one).
 */
function createListingMemo() {
  const recentListings = new WeakMap<
    readonly SourcedTool[],
    {
      sources: readonly ToolSource[];
      lists: readonly (readonly SourcedTool[])[];
      listing: ToolCatalogListing;
    }
  >();

  function listsOf(outcomes: readonly SourceOutcome[]): (readonly SourcedTool[])[] | undefined {
    const lists: (readonly SourcedTool[])[] = [];
    for (const outcome of outcomes) {
      if (!('tools' in outcome) || !Object.isFrozen(outcome.tools)) return undefined;
      lists.push(outcome.tools);
    }
    return lists;
  }

  function reusedListing(
    asked: readonly ToolSource[],
    outcomes: readonly SourceOutcome[],
  ): ToolCatalogListing | undefined {
    const last = outcomes.at(-1);
    if (!last || !('tools' in last)) return undefined;
    const known = recentListings.get(last.tools);
    if (
      !known ||
      known.sources.length !== asked.length ||
      !asked.every((source, index) => known.sources[index] === source) ||
      !outcomes.every(
        (outcome, index) => 'tools' in outcome && known.lists[index] === outcome.tools,
      )
    )
      return undefined;
    return known.listing;
  }

  function remember(
    asked: readonly ToolSource[],
    outcomes: readonly SourceOutcome[],
    listing: ToolCatalogListing,
  ): void {
    const lists = listsOf(outcomes);
    const last = lists?.at(-1);
    if (!lists || !last) return;
    Object.freeze(listing.tools);
    Object.freeze(listing.problems);
    Object.freeze(listing);
    recentListings.set(last, { sources: [...asked], lists, listing });
  }
  return { reusedListing, remember };
}

export function createToolCatalog(
  sources: readonly ToolSource[],
  options: {
    budgetMs?: number;
    userSources?: UserToolSources;
    knownUserSources?: KnownUserToolSources;
  } = {},
): ToolCatalog {
  const ids = new Set<string>();
  for (const source of sources) {
    if (ids.has(source.info.id))
      throw new ToolCatalogError(`Two tool sources have the id "${source.info.id}".`);
    ids.add(source.info.id);
  }
  const defaultBudgetMs = options.budgetMs ?? DEFAULT_SOURCE_BUDGET_MS;
  const { reusedListing, remember } = createListingMemo();
  // The fixed sources, then a user's own: the same array for the same user sources.
  const withOwn = new WeakMap<readonly ToolSource[], readonly ToolSource[]>();
  const askedWith = (own: readonly ToolSource[]): readonly ToolSource[] => {
    if (own.length === 0) return sources;
    let asked = withOwn.get(own);
    if (!asked) {
      asked = [...sources, ...own];
      withOwn.set(own, asked);
    }
    return asked;
  };

  /** Asks these sources (each within the budget) and merges their tools. */
  function listSources(
    asked: readonly ToolSource[],
    request: ToolCatalogRequest,
    problems: ToolCatalogProblem[],
  ): ToolCatalogListing | Promise<ToolCatalogListing> {
    const budgetMs = request.budgetMs ?? defaultBudgetMs;
    let waiting = false;
    const listed = asked.map((source) => {
      const outcome = listOneSource(source, request, budgetMs);
      if (outcome instanceof Promise) waiting = true;
      return outcome;
    });
    return waiting
      ? Promise.all(listed).then((outcomes) => merge(asked, outcomes, problems))
      : merge(asked, listed as SourceOutcome[], problems);
  }

  function merge(
    asked: readonly ToolSource[],
    outcomes: readonly SourceOutcome[],
    problems: ToolCatalogProblem[],
  ): ToolCatalogListing {
    if (problems.length === 0) {
      const again = reusedListing(asked, outcomes);
      if (again) return again;
    }
    const byName = new Map<string, SourcedTool>();
    const tools: SourcedTool[] = [];
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
          tools.push(listed);
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
    const listing: ToolCatalogListing = {
      sources: asked,
      tools,
      get: (name) => byName.get(name),
      problems,
    };
    if (problems.length === 0) remember(asked, outcomes, listing);
    return listing;
  }

  return {
    sources,
    budgetMs: defaultBudgetMs,
    async list(request) {
      const problems: ToolCatalogProblem[] = [];
      let asked: readonly ToolSource[] = sources;
      if (options.userSources) {
        try {
          asked = askedWith(await options.userSources(request.userId));
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
      return listSources(asked, request, problems);
    },
    listKnown(request) {
      if (!options.userSources) return listSources(sources, request, []);
      const known = options.knownUserSources?.(request.userId);
      if (!known) return undefined;
      return listSources(askedWith(known), request, []);
    },
  };
}

/** The catalog with the user's own sources (their MCP servers) asked after its fixed ones. */
export function withUserSources(
  catalog: ToolCatalog,
  userSources: UserToolSources,
  knownUserSources?: KnownUserToolSources,
): ToolCatalog {
  return createToolCatalog(catalog.sources, {
    budgetMs: catalog.budgetMs,
    userSources,
    ...(knownUserSources ? { knownUserSources } : {}),
  });
}
