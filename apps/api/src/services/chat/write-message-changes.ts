/**
 * One save of a chat's messages (`writeMessageChanges`), the statements it
 * runs, and the ids new messages get. `ChatRepository.saveMessages`
 * (chat-repository.ts) runs it through the group commit; `bench:saves` times
 * it on its own.
 */
import type { Transaction } from 'kysely';
import { prepareQuery } from '../../db/prepared-query';
import { createRowId } from '../../db/row-ids';
import type { DatabaseSchema } from '../../db/schema';
import { readTimestamp, writeJson, writeTimestamp } from '../../db/values';
import type { MessageChanges, SaveMessagesOptions, StoredMessage } from './chat-repository';

export function createMessageId(): string {
  return createRowId('msg');
}

// Each save's statements, prepared once per database (db/prepared-query.ts).
const rewriteMessage = prepareQuery<{
  parts: string;
  usage: string | null;
  updatedAt: string;
  id: string;
  chatId: string;
}>((db, slot) =>
  db
    .updateTable('messages')
    .set({ parts: slot('parts'), usage: slot('usage'), updated_at: slot('updatedAt') })
    .where('id', '=', slot('id'))
    .where('chat_id', '=', slot('chatId')),
);

const latestMessageAt = prepareQuery<{ chatId: string }, { latest: Date | string | null }>(
  (db, slot) =>
    db
      .selectFrom('messages')
      .select((expression) => expression.fn.max('created_at').as('latest'))
      .where('chat_id', '=', slot('chatId')),
);

const touchChat = prepareQuery<{ updatedAt: string; chatId: string }>((db, slot) =>
  db
    .updateTable('chats')
    .set({ updated_at: slot('updatedAt') })
    .where('id', '=', slot('chatId')),
);

const MESSAGE_COLUMNS = [
  'id',
  'chat_id',
  'role',
  'parts',
  'usage',
  'created_at',
  'updated_at',
] as const;
type MessageRow = Record<(typeof MESSAGE_COLUMNS)[number], string | null>;

/** An insert of `count` messages, for the counts a checkpoint writes (more are built each time). */
const PREPARED_INSERT_ROWS = 8;
const insertsByCount = new Map<number, ReturnType<typeof prepareInsert>>();

function prepareInsert(count: number) {
  return prepareQuery<Record<string, string | null>>((db, slot) =>
    db.insertInto('messages').values(
      Array.from({ length: count }, (_, row) => ({
        id: slot(`id${row}`) as string,
        chat_id: slot(`chat_id${row}`) as string,
        role: slot(`role${row}`) as string,
        parts: slot(`parts${row}`) as string,
        usage: slot(`usage${row}`),
        created_at: slot(`created_at${row}`) as string,
        updated_at: slot(`updated_at${row}`) as string,
      })),
    ),
  );
}

function insertMessages(count: number): ReturnType<typeof prepareInsert> | undefined {
  if (count > PREPARED_INSERT_ROWS) return undefined;
  let prepared = insertsByCount.get(count);
  if (!prepared) {
    prepared = prepareInsert(count);
    insertsByCount.set(count, prepared);
  }
  return prepared;
}

/** The named values of `insertMessages(rows.length)`. */
function rowValues(rows: readonly MessageRow[]): Record<string, string | null> {
  const values: Record<string, string | null> = {};
  rows.forEach((row, index) => {
    for (const column of MESSAGE_COLUMNS) values[`${column}${index}`] = row[column];
  });
  return values;
}

/** The time of the chat's last message, in milliseconds (0 for a chat without messages). */
async function latestMessageTime(
  transaction: Transaction<DatabaseSchema>,
  chatId: string,
): Promise<number> {
  const last = (await transaction.executeQuery(latestMessageAt(transaction, { chatId }))).rows[0];
  return last?.latest ? Date.parse(readTimestamp(last.latest)) : 0;
}

/**
 * One save of a chat's messages inside `transaction` (`saveMessages` runs it
 * in a transaction of its own or shares one, `group-commit.ts`): rewrites the
 * updated messages, then appends the new ones strictly after the chat's last
 * message (whose time is read, unless the caller vouches for it with
 * `after`) and, unless `keepChatTime`, moves the chat's `updated_at` to the
 * last one's time. Throws, for the caller to roll back, when an update
 * names a message the chat does not have.
 */
export async function writeMessageChanges(
  transaction: Transaction<DatabaseSchema>,
  chatId: string,
  changes: MessageChanges,
  now: () => number = Date.now,
  options: Pick<SaveMessagesOptions, 'keepChatTime' | 'after'> = {},
): Promise<StoredMessage[]> {
  const updates = changes.update ?? [];
  const messages = changes.append ?? [];
  for (const update of updates) {
    const result = await transaction.executeQuery(
      rewriteMessage(transaction, {
        parts: writeJson(update.parts),
        usage: update.usage ? writeJson(update.usage) : null,
        updatedAt: writeTimestamp(now()),
        id: update.id,
        chatId,
      }),
    );
    // Throwing rolls the whole change back: it was meant for messages this chat no longer has.
    if (Number(result.numAffectedRows ?? 0) === 0)
      throw new Error(`Message "${update.id}" is not a message of chat "${chatId}".`);
  }
  if (messages.length === 0) return [];
  const latest =
    options.after !== undefined
      ? Date.parse(options.after)
      : await latestMessageTime(transaction, chatId);
  // Strictly after the chat's last message, one millisecond apart: order is the write order.
  const start = Math.max(now(), latest + 1);
  const stored = messages.map((message, index) => ({
    id: message.id ?? createMessageId(),
    chatId,
    role: message.role,
    parts: message.parts,
    ...(message.usage ? { usage: message.usage } : {}),
    createdAt: writeTimestamp(start + index),
  }));
  const rows = stored.map((message) => ({
    id: message.id,
    chat_id: chatId,
    role: message.role,
    parts: writeJson(message.parts),
    usage: message.usage ? writeJson(message.usage) : null,
    created_at: message.createdAt,
    updated_at: message.createdAt,
  }));
  const insert = insertMessages(rows.length);
  await transaction.executeQuery(
    insert
      ? insert(transaction, rowValues(rows))
      : transaction.insertInto('messages').values(rows).compile(),
  );
  if (!options.keepChatTime)
    await transaction.executeQuery(
      touchChat(transaction, {
        updatedAt: writeTimestamp(start + messages.length - 1),
        chatId,
      }),
    );
  return stored;
}
