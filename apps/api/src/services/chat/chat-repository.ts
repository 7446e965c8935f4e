/**
 * `chats` and `messages` (docs/chat-turns.md#what-is-stored-and-streamed, docs/operations.md#the-database). Every chat query is scoped by its
 * owner, so another user's chat id reads as absent. Messages are stored as
 * parts (JSON) and come back in the order they were written: each append gives
 * its messages strictly increasing timestamps after the chat's last one. A
 * running turn stores its messages step by step, rewriting a stored message's
 * parts as its tool calls finish (`saveMessages`).
 */
import {
  type ChatMode,
  type MessagePart,
  MessagePart as MessagePartSchema,
  type MessageRole,
  type TurnUsage,
  TurnUsage as TurnUsageSchema,
} from '@mango/shared';
import { Value } from '@sinclair/typebox/value';
import type { Transaction } from 'kysely';
import type { AppDatabase } from '../../db/database';
import { createGroupCommit } from '../../db/group-commit';
import { prepareQuery } from '../../db/prepared-query';
import { createRowId } from '../../db/row-ids';
import type { DatabaseSchema } from '../../db/schema';
import { readBoolean, readJson, readTimestamp, writeTimestamp } from '../../db/values';
import { writeMessageChanges } from './write-message-changes';

export interface ChatRecord {
  id: string;
  userId: string;
  title: string;
  mode: ChatMode;
  workingDirectory: string | null;
  restrictToWorkingDirectory: boolean;
  model: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface StoredMessage {
  id: string;
  chatId: string;
  role: MessageRole;
  parts: MessagePart[];
  /** An assistant message's model call: the tokens its provider reported. */
  usage?: TurnUsage;
  createdAt: string;
}

export type NewChat = Pick<
  ChatRecord,
  'title' | 'mode' | 'workingDirectory' | 'restrictToWorkingDirectory' | 'model'
>;
export type ChatChanges = Partial<NewChat>;

export interface NewMessage {
  /** Chosen up front when a client must know it before the message is stored (`turn_started`). */
  id?: string;
  role: MessageRole;
  parts: MessagePart[];
  usage?: TurnUsage;
}

export interface MessageChanges {
  /** Stored messages of the chat whose parts are replaced (their order stays). */
  update?: { id: string; parts: MessagePart[]; usage?: TurnUsage }[];
  /** New messages, stored after the chat's last one. */
  append?: NewMessage[];
}

export interface SaveMessagesOptions {
  /**
   * True for a save nothing waits on yet (a step's, beside the next model
   * call): on SQLite it may wait for the end of the event loop's turn to share
   * a commit with other turns' saves (`group-commit.ts`). Default false.
   */
  gathered?: boolean;
  /**
   * Leaves the chat's `updated_at` as it is instead of moving it to the last
   * message's time: for a running turn's step saves, between its first save
   * (the user's message) and its last, which move it. One row and its index
   * entry fewer to rewrite per step. Default false.
   */
  keepChatTime?: boolean;
  /**
   * The time (ISO) of the chat's last message, when the caller wrote that
   * message itself and still holds the chat's claim, so that nothing else can
   * have appended since (a running turn's later saves): new messages are
   * stamped after it without reading the chat's latest message time, the
   * costliest statement of a save. Without it, that time is read.
   */
  after?: string;
}

export interface ChatRepository {
  create(userId: string, chat: NewChat): Promise<ChatRecord>;
  /**
   * The user's chats, most recently active first: at most `limit`, after the
   * chat `after` names (its `updatedAt` and `id`, the order's two keys).
   */
  list(
    userId: string,
    page?: { limit: number; after?: { updatedAt: string; id: string } },
  ): Promise<ChatRecord[]>;
  get(userId: string, chatId: string): Promise<ChatRecord | undefined>;
  update(userId: string, chatId: string, changes: ChatChanges): Promise<ChatRecord | undefined>;
  delete(userId: string, chatId: string): Promise<boolean>;
  listMessages(chatId: string): Promise<StoredMessage[]>;
  /** Stores messages after the chat's last one, in one transaction, and marks the chat active. */
  appendMessages(chatId: string, messages: NewMessage[]): Promise<StoredMessage[]>;
  /**
   * Rewrites the parts of stored messages and appends new ones, in one
   * transaction (all or nothing); appending marks the chat active. Resolves to
   * the appended messages. A message id that is not the chat's is refused.
   */
  saveMessages(
    chatId: string,
    changes: MessageChanges,
    options?: SaveMessagesOptions,
  ): Promise<StoredMessage[]>;
}

interface ChatRow {
  id: string;
  user_id: string;
  title: string;
  mode: string;
  working_directory: string | null;
  restrict_to_working_directory: boolean | number;
  model: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

function toChat(row: ChatRow): ChatRecord {
  return {
    id: row.id,
    userId: row.user_id,
    title: row.title,
    mode: row.mode === 'agent' ? 'agent' : 'chat',
    workingDirectory: row.working_directory,
    restrictToWorkingDirectory: readBoolean(row.restrict_to_working_directory) ?? true,
    model: row.model,
    createdAt: readTimestamp(row.created_at),
    updatedAt: readTimestamp(row.updated_at),
  };
}

const ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'tool']);

/** Parts as stored; a corrupt row or part is left out rather than breaking the whole chat. */
function readParts(value: unknown): MessagePart[] {
  const parsed = readJson(value);
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((part): part is MessagePart => Value.Check(MessagePartSchema, part));
}

export function createChatId(): string {
  return createRowId('chat');
}

/** Usage as stored; anything else (a corrupt value) reads as none. */
function readUsage(value: unknown): TurnUsage | undefined {
  const parsed = value === null || value === undefined ? undefined : readJson(value);
  return Value.Check(TurnUsageSchema, parsed) ? parsed : undefined;
}

const optionalUsage = (usage: TurnUsage | undefined) => (usage ? { usage } : {});

const chatColumns = [
  'id',
  'user_id',
  'title',
  'mode',
  'working_directory',
  'restrict_to_working_directory',
  'model',
  'created_at',
  'updated_at',
] as const;

// The statements every turn repeats (a chat's lookup, its messages), prepared once per
// database (db/prepared-query.ts); a save's are in write-message-changes.ts.
const selectChat = prepareQuery<{ chatId: string; userId: string }, ChatRow>((db, slot) =>
  db
    .selectFrom('chats')
    .select(chatColumns)
    .where('id', '=', slot('chatId'))
    .where('user_id', '=', slot('userId')),
);

interface StoredMessageRow {
  id: string;
  chat_id: string;
  role: string;
  parts: unknown;
  usage: unknown;
  created_at: Date | string;
}

const selectMessages = prepareQuery<{ chatId: string }, StoredMessageRow>((db, slot) =>
  db
    .selectFrom('messages')
    .select(['id', 'chat_id', 'role', 'parts', 'usage', 'created_at'])
    .where('chat_id', '=', slot('chatId'))
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc'),
);

export function createChatRepository(
  database: AppDatabase,
  now: () => number = Date.now,
): ChatRepository {
  const { db } = database;

  // Under load many turns store their messages at once: on SQLite they share a commit.
  const groupCommit = createGroupCommit(database);

  const saveMessages: ChatRepository['saveMessages'] = async (chatId, changes, options = {}) => {
    if (!changes.update?.length && !changes.append?.length) return [];
    const work = (transaction: Transaction<DatabaseSchema>) =>
      writeMessageChanges(transaction, chatId, changes, now, options);
    return options.gathered ? groupCommit.runGathered(work) : groupCommit.run(work);
  };

  return {
    async create(userId, chat) {
      const stamp = writeTimestamp(now());
      const id = createChatId();
      await db
        .insertInto('chats')
        .values({
          id,
          user_id: userId,
          title: chat.title,
          mode: chat.mode,
          working_directory: chat.workingDirectory,
          restrict_to_working_directory: chat.restrictToWorkingDirectory,
          model: chat.model,
          created_at: stamp,
          updated_at: stamp,
        })
        .execute();
      return {
        id,
        userId,
        ...chat,
        createdAt: readTimestamp(stamp),
        updatedAt: readTimestamp(stamp),
      };
    },

    async list(userId, page) {
      let query = db
        .selectFrom('chats')
        .select(chatColumns)
        .where('user_id', '=', userId)
        .orderBy('updated_at', 'desc')
        .orderBy('id', 'desc');
      const after = page?.after;
      if (after) {
        const at = writeTimestamp(Date.parse(after.updatedAt));
        query = query.where((where) =>
          where.or([
            where('updated_at', '<', at),
            where.and([where('updated_at', '=', at), where('id', '<', after.id)]),
          ]),
        );
      }
      if (page) query = query.limit(page.limit);
      const rows = await query.execute();
      return rows.map((row) => toChat(row as ChatRow));
    },

    async get(userId, chatId) {
      const [row] = (await db.executeQuery(selectChat(db, { chatId, userId }))).rows;
      return row ? toChat(row) : undefined;
    },

    async update(userId, chatId, changes) {
      const values: Record<string, unknown> = { updated_at: writeTimestamp(now()) };
      if (changes.title !== undefined) values.title = changes.title;
      if (changes.mode !== undefined) values.mode = changes.mode;
      if (changes.workingDirectory !== undefined)
        values.working_directory = changes.workingDirectory;
      if (changes.restrictToWorkingDirectory !== undefined)
        values.restrict_to_working_directory = changes.restrictToWorkingDirectory;
      if (changes.model !== undefined) values.model = changes.model;
      const result = await db
        .updateTable('chats')
        .set(values)
        .where('id', '=', chatId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return undefined;
      return this.get(userId, chatId);
    },

    async delete(userId, chatId) {
      const result = await db
        .deleteFrom('chats')
        .where('id', '=', chatId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async listMessages(chatId) {
      const { rows } = await db.executeQuery(selectMessages(db, { chatId }));
      return rows
        .filter((row) => ROLES.has(row.role))
        .map((row) => ({
          id: row.id,
          chatId: row.chat_id,
          role: row.role as MessageRole,
          parts: readParts(row.parts),
          ...optionalUsage(readUsage(row.usage)),
          createdAt: readTimestamp(row.created_at),
        }));
    },

    appendMessages: (chatId, messages) => saveMessages(chatId, { append: messages }),
    saveMessages,
  };
}
