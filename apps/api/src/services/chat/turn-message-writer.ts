/**
 * Stores a running turn's messages as they are produced, so a crash loses at
 * most the step in progress. The loop hands over everything the turn has added
 * so far; messages not stored yet are appended, stored ones whose parts changed
 * since (a tool call that finished: status, error code, duration) are
 * rewritten — both in one transaction, so a call and its result are stored
 * together. What is stored at the end is exactly the turn's final messages.
 */
import type { ConversationMessage } from '@mango/shared';
import type { ChatRepository, MessageChanges } from './chat-repository';

export interface TurnMessageWriter {
  /**
   * Stores what changed in `messages` (everything the turn added, in order; the
   * same list grows and its messages may change between calls). Calls must not
   * overlap.
   */
  save(messages: readonly ConversationMessage[]): Promise<void>;
  /** Saves the last list given to `save` again (what changed in it since). */
  flush(): Promise<void>;
}

export function createTurnMessageWriter(
  chats: Pick<ChatRepository, 'saveMessages'>,
  chatId: string,
): TurnMessageWriter {
  /** What is stored for each message already written, by position in the turn. */
  const stored: { id: string; json: string }[] = [];
  let latest: readonly ConversationMessage[] = [];

  const save = async (messages: readonly ConversationMessage[]) => {
    latest = messages;
    const changes: Required<MessageChanges> = { update: [], append: [] };
    const appended: string[] = [];
    const rewritten: { entry: { json: string }; json: string }[] = [];
    messages.forEach((message, index) => {
      // Parts are copied as JSON now: the loop keeps changing the objects it handed over.
      const json = JSON.stringify(message.parts);
      const written = stored[index];
      if (!written) {
        changes.append.push({ role: message.role, parts: JSON.parse(json) });
        appended.push(json);
      } else if (written.json !== json) {
        changes.update.push({ id: written.id, parts: JSON.parse(json) });
        rewritten.push({ entry: written, json });
      }
    });
    if (changes.update.length === 0 && changes.append.length === 0) return;
    const rows = await chats.saveMessages(chatId, changes);
    // Only once the transaction committed; after a failure the next save tries the same again.
    for (const { entry, json } of rewritten) entry.json = json;
    rows.forEach((row, index) => {
      stored.push({ id: row.id, json: appended[index] as string });
    });
  };

  return { save, flush: () => save(latest) };
}
