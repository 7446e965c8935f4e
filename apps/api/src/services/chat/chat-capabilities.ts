/**
 * The capabilities inspector (SPEC §11, `GET /api/chats/:id/capabilities`):
 * the tools a chat's next turn would offer its model, built the same way the
 * turn builds them (`createTurnToolset`), each with its source and state, and
 * on request the exact tool fields the chat's provider would receive. MCP
 * servers are not built yet: the server list is empty and every tool is a
 * built-in.
 */
import type { CapabilityTool, ChatCapabilities, ChatCapabilitiesQuery } from '@mango/shared';
import { ApiError } from '../../errors';
import { defaultToolRegistry } from '../tools/registry';
import type { ChatRepository } from './chat-repository';
import { chatNotFound } from './chat-service';
import { type ChatTurnServiceDeps, createTurnToolset, toConversation } from './chat-turn-service';

export type ChatCapabilitiesDeps = Pick<
  ChatTurnServiceDeps,
  'providers' | 'loadSavedToolSettings' | 'createToolset' | 'toolRegistry' | 'createFreshnessLedger'
> & { chats: ChatRepository };

export const DISABLED_TOOL_REASON =
  'Switched off for this user in Settings → Tools (PUT /api/settings/tools/:toolName).';

export function createChatCapabilities(deps: ChatCapabilitiesDeps) {
  const registry = deps.toolRegistry ?? defaultToolRegistry;
  return {
    async inspect(
      userId: string,
      chatId: string,
      query: ChatCapabilitiesQuery = {},
    ): Promise<ChatCapabilities> {
      const chat = await deps.chats.get(userId, chatId);
      if (!chat) throw chatNotFound(chatId);
      const saved = await deps.loadSavedToolSettings(userId);
      const toolset = createTurnToolset(deps, userId, chat, saved);
      const offered = new Set(toolset.definitions.map((definition) => definition.name));
      const tools: CapabilityTool[] = registry.list().map((tool) => {
        const name = tool.definition.name;
        const entry: CapabilityTool = {
          name,
          title: tool.settings.title,
          category: tool.settings.category,
          source: 'builtin',
          state: offered.has(name) ? 'enabled' : 'disabled',
        };
        if (!offered.has(name)) entry.reason = DISABLED_TOOL_REASON;
        return entry;
      });
      // A toolset may offer tools beyond the registry (another source): listed as enabled.
      for (const definition of toolset.definitions) {
        if (registry.has(definition.name)) continue;
        tools.push({
          name: definition.name,
          title: definition.name,
          category: 'other',
          source: 'server',
          state: 'enabled',
        });
      }
      const result: ChatCapabilities = { chatId: chat.id, model: chat.model, tools, servers: [] };
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
