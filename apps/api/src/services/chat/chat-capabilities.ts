/**
 * The capabilities inspector (docs/http-api.md#the-capabilities-inspector, `GET /api/chats/:id/capabilities`):
 * the tools a chat's next turn would offer its model, from the very listing a
 * turn makes (`listChatTools`), each with its source, state and reason; each
 * tool source other than the built-ins with its health; and on request the
 * exact tool fields the chat's provider would receive.
 */
import type {
  CapabilityServer,
  CapabilityTool,
  ChatCapabilities,
  ChatCapabilitiesQuery,
} from '@mango/shared';
import { ApiError } from '../../errors';
import type { ProviderRegistry } from '../providers/provider-registry';
import type { ToolCatalogListing } from '../tools/sources/tool-catalog';
import type { SourcedTool } from '../tools/sources/tool-source';
import type { ChatRepository } from './chat-repository';
import { chatNotFound } from './chat-service';
import { type ChatToolsDeps, listChatTools } from './chat-tools';
import { toConversation } from './conversation';

export interface ChatCapabilitiesDeps {
  chats: ChatRepository;
  providers: ProviderRegistry;
  tools: ChatToolsDeps;
}

function describeTool(listed: SourcedTool): CapabilityTool {
  const { info } = listed.source;
  return {
    name: listed.tool.definition.name,
    title: listed.tool.settings.title,
    category: listed.tool.settings.category,
    source: info.kind,
    ...(info.kind === 'server' ? { server: info.id } : {}),
    state: listed.state,
    ...(listed.reason ? { reason: listed.reason } : {}),
  };
}

/**
 * Every source beside the built-ins, with its health for this user and
 * whether this listing reached it: a server that missed the budget or failed
 * shows that, with the reason the turn would report.
 */
function describeServers(userId: string, listing: ToolCatalogListing): CapabilityServer[] {
  return listing.sources
    .filter((source) => source.info.kind === 'server')
    .map((source) => {
      const problem = listing.problems.find(
        (item) => item.sourceId === source.info.id && item.kind !== 'name_clash',
      );
      const health = source.health?.(userId);
      const toolCount = listing.tools.filter(
        (tool) => tool.source.info.id === source.info.id,
      ).length;
      const state = health?.state ?? (problem ? 'error' : 'ready');
      return {
        id: source.info.id,
        name: source.info.name,
        state: problem && state === 'ready' ? 'error' : state,
        health: problem ? problem.kind : (health?.health ?? 'ok'),
        ...(problem
          ? { reason: problem.message }
          : health?.reason
            ? { reason: health.reason }
            : {}),
        toolCount: problem ? (health?.toolCount ?? null) : toolCount,
        ...(health?.lastError ? { lastError: health.lastError } : {}),
      };
    });
}

export function createChatCapabilities(deps: ChatCapabilitiesDeps) {
  return {
    async inspect(
      userId: string,
      chatId: string,
      query: ChatCapabilitiesQuery = {},
    ): Promise<ChatCapabilities> {
      const chat = await deps.chats.get(userId, chatId);
      if (!chat) throw chatNotFound(chatId);
      const { listing, toolset } = await listChatTools(deps.tools, userId, chat);
      const result: ChatCapabilities = {
        chatId: chat.id,
        model: chat.model,
        tools: listing.tools.map(describeTool),
        servers: describeServers(userId, listing),
      };
      if (query.include !== 'wire') return result;

      const modelName = query.model ?? chat.model;
      if (!modelName) {
        throw new ApiError(
          'validation_failed',
          "This chat has no model yet, so there is no provider payload to show. Pass ?model=provider:modelId, or set the chat's model.",
          { details: { field: 'model' } },
        );
      }
      const resolved = deps.providers.resolveModel(modelName);
      const history = toConversation(await deps.chats.listMessages(chat.id));
      result.wire = {
        model: modelName,
        payload: resolved.provider.toolRequestFields(toolset.definitions, history),
      };
      return result;
    },
  };
}

export type ChatCapabilitiesService = ReturnType<typeof createChatCapabilities>;
