/**
 * The tools of one chat, as its next turn and its capabilities inspector both
 * see them: one catalog listing for the chat's user and scope, and the turn
 * toolset built from it. Both callers go through `listChatTools`, so what the
 * inspector shows is what the provider would receive.
 */
import { grantedRootsOf } from '../tools/host-access';
import type { SavedToolSettingsByName } from '../tools/runtime';
import type { ToolCatalog, ToolCatalogListing } from '../tools/sources/tool-catalog';
import type { FileFreshnessLedger, HostAccess } from '../tools/types';
import type { ChatRecord } from './chat-repository';
import { createTurnToolset, type TurnToolset } from './turn-toolset';

export interface ChatToolsDeps {
  /** Every tool source, merged (the built-ins, MCP servers). */
  catalog: ToolCatalog;
  /** A user's saved tool settings, by tool name. */
  loadSavedToolSettings: (userId: string) => Promise<SavedToolSettingsByName>;
  /** The chat's read-before-write ledger (the database one in production). */
  createFreshnessLedger: (chatId: string) => FileFreshnessLedger;
  /** Paths no tool may touch, whatever the settings say (the server's data directory). */
  protectedPaths?: readonly string[];
  /** What a user's system tools may reach (docs/security.md#system-tools-are-granted); unrestricted without. */
  hostAccess?: (userId: string) => Promise<HostAccess>;
  /** How long each tool source may take to list its tools when a turn starts. */
  listingBudgetMs?: number;
}

export interface ChatTools {
  listing: ToolCatalogListing;
  toolset: TurnToolset;
}

export async function listChatTools(
  deps: ChatToolsDeps,
  userId: string,
  chat: ChatRecord,
  signal?: AbortSignal,
): Promise<ChatTools> {
  const [saved, hostAccess] = await Promise.all([
    deps.loadSavedToolSettings(userId),
    deps.hostAccess?.(userId),
  ]);
  const grantedRoots = grantedRootsOf(hostAccess);
  const where = {
    mode: chat.mode,
    ...(chat.workingDirectory ? { workingDirectory: chat.workingDirectory } : {}),
    restrictToWorkingDirectory: chat.restrictToWorkingDirectory,
  };
  const listing = await deps.catalog.list({
    userId,
    chat: { id: chat.id, ...where },
    saved,
    ...(hostAccess ? { hostAccess } : {}),
    ...(signal ? { signal } : {}),
    ...(deps.listingBudgetMs === undefined ? {} : { budgetMs: deps.listingBudgetMs }),
  });
  const toolset = createTurnToolset(listing, {
    userId,
    chatId: chat.id,
    ...where,
    freshness: deps.createFreshnessLedger(chat.id),
    ...(deps.protectedPaths ? { protectedPaths: deps.protectedPaths } : {}),
    ...(grantedRoots ? { grantedRoots } : {}),
  });
  return { listing, toolset };
}
