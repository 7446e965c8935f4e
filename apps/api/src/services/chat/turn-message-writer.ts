/**
 * Stores a running turn's messages as they are produced, so a crash loses at
 * most the step in progress. The loop hands over everything the turn has added
 * so far; messages not stored yet are appended, stored ones whose parts changed
 * since (a tool call that finished: status, error code, duration) are
 * rewritten — both in one transaction, so a call and its result are stored
 * together. What is stored at the end is exactly the turn's final messages.
 */
import type { ConversationMessage } from '@mango/shared';
import type { ChatRepository, MessageChanges, NewMessage } from './chat-repository';

export interface TurnMessageWriter {
  /**
   * Stores what changed in `messages` (everything the turn added, in order; the
   * same list grows and its messages may change between calls), committed at
   * once. Calls (of this and `checkpoint`) must not overlap.
   */
  save(messages: readonly ConversationMessage[]): Promise<void>;
  /**
   * The same for a save nothing waits on yet (a step's, while the next model
   * call runs): it may wait for the end of the event loop's turn to share a
   * commit with other turns' saves, and it leaves the chat's time as it is
   * (the turn's first and last saves, through `save`, move it).
   */
  checkpoint(messages: readonly ConversationMessage[]): Promise<void>;
  /** Saves the last list given to `save` again (what changed in it since). */
  flush(): Promise<void>;
}

export interface TurnMessageWriterOptions {
  /** The id the turn's first assistant message is stored under (announced in `turn_started`). */
  firstAssistantMessageId?: string;
}

export function createTurnMessageWriter(
  chats: Pick<ChatRepository, 'saveMessages'>,
  chatId: string,
  options: TurnMessageWriterOptions = {},
): TurnMessageWriter {
  /** What is stored for each message already written, by position in the turn. */
  const stored: { id: string; json: string; role: string }[] = [];
  let latest: readonly ConversationMessage[] = [];
  // The time of the last message this writer appended: the turn holds the
  // chat's claim, so it is the chat's last message, and later saves need not read it.
  let lastAppendedAt: string | undefined;

  const store = async (messages: readonly ConversationMessage[], gathered: boolean) => {
    latest = messages;
    const changes: Required<MessageChanges> = { update: [], append: [] };
    const appended: { json: string; role: string }[] = [];
    const rewritten: { entry: { json: string }; json: string }[] = [];
    let firstAssistant = !stored.some((entry) => entry.role === 'assistant');
    messages.forEach((message, index) => {
      const usage = message.role === 'assistant' ? message.usage : undefined;
      // Copied as JSON now: the loop keeps changing the objects it handed over.
      const json = JSON.stringify({ parts: message.parts, usage });
      const written = stored[index];
      if (written?.json === json) return;
      const copy = JSON.parse(json) as Pick<NewMessage, 'parts' | 'usage'>;
      if (!written) {
        const id =
          message.role === 'assistant' && firstAssistant
            ? options.firstAssistantMessageId
            : undefined;
        if (message.role === 'assistant') firstAssistant = false;
        changes.append.push({ ...(id ? { id } : {}), role: message.role, ...copy });
        appended.push({ json, role: message.role });
      } else {
        changes.update.push({ id: written.id, ...copy });
        rewritten.push({ entry: written, json });
      }
    });
    if (changes.update.length === 0 && changes.append.length === 0) return;
    const rows = await chats.saveMessages(chatId, changes, {
      ...(gathered ? { gathered: true, keepChatTime: true } : {}),
      ...(lastAppendedAt === undefined ? {} : { after: lastAppendedAt }),
    });
    // Only once the transaction committed; after a failure the next save tries the same again.
    for (const { entry, json } of rewritten) entry.json = json;
    rows.forEach((row, index) => {
      const entry = appended[index] as { json: string; role: string };
      stored.push({ id: row.id, ...entry });
    });
    lastAppendedAt = rows.at(-1)?.createdAt ?? lastAppendedAt;
  };

  return {
    save: (messages) => store(messages, false),
    checkpoint: (messages) => store(messages, true),
    flush: () => store(latest, false),
  };
}
