/**
 * Chats as the API offers them (docs/http-api.md#routes): create, list, read, change and
 * delete the caller's own chats and read their messages. Another user's chat
 * answers exactly like a chat that does not exist (404).
 */

import {
  type Chat,
  type ChatListQuery,
  type ChatListResponse,
  type ChatMessage,
  type CreateChatBody,
  DEFAULT_CHAT_PAGE_SIZE,
  MAX_CHAT_PAGE_SIZE,
  type UpdateChatBody,
} from '@mango/shared';
import { ApiError } from '../../errors';
import type { ImageStore } from '../images/image-store';
import type { ModelCatalog } from '../providers/model-catalog';
import type { HostAccess } from '../tools/types';
import type { ChatChanges, ChatRecord, ChatRepository } from './chat-repository';
import type { RunningTurns } from './running-turns';
import {
  checkWorkingDirectoryAccess,
  requireAgentWorkingDirectory,
  resolveWorkingDirectory,
} from './working-directory';

export const DEFAULT_CHAT_TITLE = 'New chat';

/** A page's end as an opaque cursor: the last chat's `updatedAt` and `id`. */
function chatCursor(chat: { updatedAt: string; id: string }): string {
  return Buffer.from(JSON.stringify([chat.updatedAt, chat.id])).toString('base64url');
}

function readChatCursor(cursor: string): { updatedAt: string; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      !Number.isNaN(Date.parse(value[0])) &&
      typeof value[1] === 'string'
    )
      return { updatedAt: value[0], id: value[1] };
  } catch {
    // Refused below.
  }
  throw new ApiError(
    'validation_failed',
    'The cursor is not one this server gave out: pass the nextCursor of the previous page of GET /api/chats, or leave it out for the first page.',
    { details: { field: 'cursor' } },
  );
}

export interface ChatService {
  create(userId: string, body: CreateChatBody): Promise<Chat>;
  /** One page of the user's chats, most recently active first (docs/http-api.md#chats). */
  list(userId: string, query?: ChatListQuery): Promise<ChatListResponse>;
  get(userId: string, chatId: string): Promise<Chat>;
  update(userId: string, chatId: string, body: UpdateChatBody): Promise<Chat>;
  delete(userId: string, chatId: string): Promise<void>;
  messages(userId: string, chatId: string): Promise<ChatMessage[]>;
}

/**
 * A chat as the API shows it. `restrictToWorkingDirectory` says what applies,
 * not what was asked: containment binds only an agent chat with a working
 * directory (docs/tools/filesystem.md#paths-and-the-working-directory), so a chat-mode chat reports false.
 */
export function toChatResponse(record: ChatRecord): Chat {
  const { userId: _owner, ...chat } = record;
  return {
    ...chat,
    restrictToWorkingDirectory:
      chat.restrictToWorkingDirectory && chat.mode === 'agent' && chat.workingDirectory !== null,
  };
}

export function chatNotFound(chatId: string): ApiError {
  return new ApiError(
    'not_found',
    `There is no chat "${chatId}" among yours. GET /api/chats lists them.`,
  );
}

/**
 * The messages as a reader should see them: a call still stored as `running`
 * while no turn runs in the chat was cut off by a server that died, and is
 * shown `aborted` (the chat's next turn stores that, with its error result).
 */
function withInterruptedCalls(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((message) =>
    message.parts.some((part) => part.type === 'tool_call' && part.status === 'running')
      ? {
          ...message,
          parts: message.parts.map((part) =>
            part.type === 'tool_call' && part.status === 'running'
              ? { ...part, status: 'aborted' as const, errorCode: 'aborted' as const }
              : part,
          ),
        }
      : message,
  );
}

export function createChatService(deps: {
  chats: ChatRepository;
  /** Refuses a model that is not offered (422 before anything is stored). */
  models: ModelCatalog;
  /** Tells a crashed turn's calls (shown `aborted`) from a running turn's (shown `running`). */
  running?: RunningTurns;
  /** Removes what a deleted chat's images leave outside the database (their files). */
  images?: Pick<ImageStore, 'removeChat'>;
  /** Where the user's system tools may reach: a bound directory must lie there. Unrestricted without. */
  hostAccess?: (userId: string) => Promise<HostAccess>;
  /** Paths no chat may bind (the server's data directory). */
  protectedPaths?: readonly string[];
}): ChatService {
  const { chats, models, running } = deps;
  const bindable = async (userId: string, input: string) => {
    const directory = await resolveWorkingDirectory(input);
    checkWorkingDirectoryAccess(directory, await deps.hostAccess?.(userId), deps.protectedPaths);
    return directory;
  };
  const owned = async (userId: string, chatId: string) => {
    const chat = await chats.get(userId, chatId);
    if (!chat) throw chatNotFound(chatId);
    return chat;
  };
  return {
    async create(userId, body) {
      if (body.model) await models.assertOffered(body.model);
      const mode = body.mode ?? 'chat';
      const workingDirectory = body.workingDirectory
        ? await bindable(userId, body.workingDirectory)
        : null;
      requireAgentWorkingDirectory(mode, workingDirectory);
      const chat = await chats.create(userId, {
        title: body.title?.trim() || DEFAULT_CHAT_TITLE,
        mode,
        workingDirectory,
        restrictToWorkingDirectory: body.restrictToWorkingDirectory ?? true,
        model: body.model ?? null,
      });
      return toChatResponse(chat);
    },
    async list(userId, query = {}) {
      const limit = query.limit === undefined ? DEFAULT_CHAT_PAGE_SIZE : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CHAT_PAGE_SIZE)
        throw new ApiError(
          'validation_failed',
          `limit must be a whole number from 1 to ${MAX_CHAT_PAGE_SIZE}; got "${query.limit}".`,
          { details: { field: 'limit' } },
        );
      const after = query.cursor === undefined ? undefined : readChatCursor(query.cursor);
      // One more than asked says whether there is a next page.
      const page = await chats.list(userId, { limit: limit + 1, ...(after ? { after } : {}) });
      const shown = page.slice(0, limit);
      const last = shown.at(-1);
      return {
        chats: shown.map(toChatResponse),
        ...(page.length > limit && last ? { nextCursor: chatCursor(last) } : {}),
      };
    },
    get: async (userId, chatId) => toChatResponse(await owned(userId, chatId)),
    async update(userId, chatId, body) {
      const current = await owned(userId, chatId);
      if (body.model) await models.assertOffered(body.model);
      const changes: ChatChanges = {};
      if (body.title !== undefined) changes.title = body.title.trim() || DEFAULT_CHAT_TITLE;
      if (body.mode !== undefined) changes.mode = body.mode;
      if (body.restrictToWorkingDirectory !== undefined)
        changes.restrictToWorkingDirectory = body.restrictToWorkingDirectory;
      if (body.model !== undefined) changes.model = body.model;
      if (body.workingDirectory !== undefined)
        changes.workingDirectory =
          body.workingDirectory === null ? null : await bindable(userId, body.workingDirectory);
      requireAgentWorkingDirectory(
        changes.mode ?? current.mode,
        changes.workingDirectory === undefined
          ? current.workingDirectory
          : changes.workingDirectory,
      );
      const updated = await chats.update(userId, chatId, changes);
      if (!updated) throw chatNotFound(chatId);
      return toChatResponse(updated);
    },
    async delete(userId, chatId) {
      if (!(await chats.delete(userId, chatId))) throw chatNotFound(chatId);
      await deps.images?.removeChat?.(chatId);
    },
    async messages(userId, chatId) {
      await owned(userId, chatId);
      const messages = await chats.listMessages(chatId);
      const hasRunningCall = messages.some((message) =>
        message.parts.some((part) => part.type === 'tool_call' && part.status === 'running'),
      );
      if (!hasRunningCall || !running || (await running.isRunning(chatId))) return messages;
      return withInterruptedCalls(messages);
    },
  };
}
