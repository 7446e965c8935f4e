/**
 * The turn's message writer (turn-message-writer.ts): what it stores, and
 * how soon. A `save` is awaited on the turn's way (the user's message, the
 * last save before `done`) and commits at once; a `checkpoint` runs beside the
 * next model call and may wait for the end of the event loop's turn to share
 * a commit with other turns' saves (SQLite; PostgreSQL commits each alone).
 */
import { expect, test } from 'bun:test';
import type { ConversationMessage } from '@mango/shared';
import {
  type ChatRepository,
  createChatRepository,
} from '../../../../src/services/chat/chat-repository';
import { createTurnMessageWriter } from '../../../../src/services/chat/turn-message-writer';
import { describeEachDatabase } from '../../../support/test-databases';
import { insertTestChat, insertTestUser } from '../../../support/test-rows';

const said = (role: 'user' | 'assistant', text: string): ConversationMessage => ({
  role,
  parts: [{ type: 'text', text }],
});

/** Runs `write`, and says whether a loop turn that was already queued ended before it did. */
async function finishesBeforeTheLoopTurn(write: () => Promise<void>): Promise<boolean> {
  let loopTurnEnded = false;
  setImmediate(() => {
    loopTurnEnded = true;
  });
  await write();
  const before = !loopTurnEnded;
  await new Promise((resolve) => setImmediate(resolve));
  return before;
}

describeEachDatabase('turn message writer', (kind, current) => {
  test('saves and checkpoints store the turn as it grows: new messages appended, changed ones rewritten', async () => {
    const { database } = current();
    const chats = createChatRepository(database);
    const chatId = await insertTestChat(database, await insertTestUser(database));
    const writer = createTurnMessageWriter(chats, chatId, { firstAssistantMessageId: 'msg_first' });
    const messages = [said('user', 'hello')];
    await writer.save(messages);
    messages.push(said('assistant', 'thinking'));
    await writer.checkpoint(messages);
    messages[1] = said('assistant', 'answered');
    messages.push(said('assistant', 'more'));
    await writer.save(messages);
    const stored = await chats.listMessages(chatId);
    expect(stored.map((message) => [message.role, message.parts])).toEqual(
      messages.map((message) => [message.role, message.parts]),
    );
    expect(stored[1]?.id).toBe('msg_first');
  });

  test("a checkpoint leaves the chat's time where the last save put it; the next save moves it to its last message", async () => {
    const { database } = current();
    const chats = createChatRepository(database);
    const userId = await insertTestUser(database);
    const chatId = await insertTestChat(database, userId);
    const writer = createTurnMessageWriter(chats, chatId);
    const chatTime = async () => (await chats.get(userId, chatId))?.updatedAt;
    const lastMessageTime = async () => (await chats.listMessages(chatId)).at(-1)?.createdAt;
    const messages = [said('user', 'hello')];
    await writer.save(messages);
    const started = await chatTime();
    expect(started).toBe(await lastMessageTime());
    messages.push(said('assistant', 'step'));
    await writer.checkpoint(messages);
    expect((await chats.listMessages(chatId)).length).toBe(2);
    expect(await chatTime()).toBe(started);
    messages.push(said('assistant', 'answer'));
    await writer.save(messages);
    const ended = await chatTime();
    expect(ended).toBe(await lastMessageTime());
    expect(Date.parse(ended as string)).toBeGreaterThan(Date.parse(started as string));
  });

  test("after its first save the writer vouches for the chat's last message time, so later saves do not read it", async () => {
    const { database } = current();
    const repository = createChatRepository(database);
    const chatId = await insertTestChat(database, await insertTestUser(database));
    const given: (string | undefined)[] = [];
    const chats: Pick<ChatRepository, 'saveMessages'> = {
      saveMessages: (id, changes, options) => {
        given.push(options?.after);
        return repository.saveMessages(id, changes, options);
      },
    };
    const writer = createTurnMessageWriter(chats, chatId);
    const messages = [said('user', 'hello')];
    await writer.save(messages);
    messages.push(said('assistant', 'step'));
    await writer.checkpoint(messages);
    messages[1] = said('assistant', 'step, rewritten');
    await writer.checkpoint(messages);
    messages.push(said('assistant', 'answer'));
    await writer.save(messages);
    const stamps = (await repository.listMessages(chatId)).map((message) => message.createdAt);
    expect(stamps).toHaveLength(3);
    // The first save reads; each later one names the last message the writer appended.
    expect(given).toEqual([undefined, stamps[0], stamps[1], stamps[1]]);
    expect(new Set(stamps).size).toBe(3);
    expect([...stamps].sort()).toEqual(stamps);
  });

  if (kind === 'sqlite')
    test('a save commits before the event loop turn ends; a checkpoint waits for it', async () => {
      const { database } = current();
      const chats = createChatRepository(database);
      const chatId = await insertTestChat(database, await insertTestUser(database));
      const writer = createTurnMessageWriter(chats, chatId);
      const messages = [said('user', 'hello')];
      expect(await finishesBeforeTheLoopTurn(() => writer.save(messages))).toBe(true);
      messages.push(said('assistant', 'step'));
      expect(await finishesBeforeTheLoopTurn(() => writer.checkpoint(messages))).toBe(false);
      messages.push(said('assistant', 'answer'));
      expect(await finishesBeforeTheLoopTurn(() => writer.flush())).toBe(true);
      expect((await chats.listMessages(chatId)).length).toBe(3);
    });
});
