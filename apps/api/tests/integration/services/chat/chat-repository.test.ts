import { expect, test } from 'bun:test';
import type { MessagePart } from '@mango/shared';
import { createChatRepository } from '../../../../src/services/chat/chat-repository';
import { describeEachDatabase } from '../../../support/test-databases';
import { insertTestUser } from '../../../support/test-rows';

const newChat = {
  title: 'Plans',
  mode: 'agent' as const,
  workingDirectory: '/srv/project',
  restrictToWorkingDirectory: true,
  model: 'openai:gpt-5',
};

describeEachDatabase('chat repository', (_kind, current) => {
  test('creates, reads, lists, changes and deletes a chat, scoped to its owner', async () => {
    const { database } = current();
    const chats = createChatRepository(database);
    const owner = await insertTestUser(database, 'owner');
    const stranger = await insertTestUser(database, 'stranger');
    const chat = await chats.create(owner, newChat);
    expect(chat).toMatchObject({ userId: owner, ...newChat });
    expect(await chats.get(owner, chat.id)).toEqual(chat);
    expect(await chats.get(stranger, chat.id)).toBeUndefined();
    expect((await chats.list(owner)).map((item) => item.id)).toEqual([chat.id]);
    expect(await chats.list(stranger)).toEqual([]);

    expect(await chats.update(stranger, chat.id, { title: 'stolen' })).toBeUndefined();
    const changed = await chats.update(owner, chat.id, {
      title: 'Renamed',
      workingDirectory: null,
      restrictToWorkingDirectory: false,
    });
    expect(changed).toMatchObject({
      title: 'Renamed',
      workingDirectory: null,
      restrictToWorkingDirectory: false,
      mode: 'agent',
    });

    expect(await chats.delete(stranger, chat.id)).toBe(false);
    expect(await chats.delete(owner, chat.id)).toBe(true);
    expect(await chats.get(owner, chat.id)).toBeUndefined();
  });

  test('messages keep their parts and the order they were written, even within one millisecond', async () => {
    const { database } = current();
    const frozen = () => 1_760_000_000_000;
    const chats = createChatRepository(database, frozen);
    const owner = await insertTestUser(database);
    const chat = await chats.create(owner, newChat);
    const call: MessagePart = {
      type: 'tool_call',
      toolCallId: 'call_1',
      name: 'read_file',
      arguments: '{"path":"a.txt"}',
      status: 'failed',
      errorCode: 'not_found',
      durationMs: 12,
      providerMetadata: { gemini: { thoughtSignature: 'sig' } },
    };
    const result: MessagePart = {
      type: 'tool_result',
      toolCallId: 'call_1',
      name: 'read_file',
      content: '{"error":{}}',
      isError: true,
    };
    await chats.appendMessages(chat.id, [
      { role: 'user', parts: [{ type: 'text', text: 'read a.txt' }] },
    ]);
    await chats.appendMessages(chat.id, [
      { role: 'assistant', parts: [{ type: 'reasoning', text: 'hmm' }, call] },
      { role: 'tool', parts: [result] },
      { role: 'assistant', parts: [{ type: 'text', text: 'It is missing.' }] },
    ]);
    const messages = await chats.listMessages(chat.id);
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(messages[1]?.parts).toEqual([{ type: 'reasoning', text: 'hmm' }, call]);
    expect(messages[2]?.parts).toEqual([result]);
    const stamps = messages.map((message) => Date.parse(message.createdAt));
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    expect(new Set(stamps).size).toBe(4);
    // Appending marks the chat as recently active.
    expect(Date.parse((await chats.get(owner, chat.id))?.updatedAt ?? '')).toBe(
      stamps[3] as number,
    );
  });

  test('chat and message ids are time-ordered: a later chat or message sorts after an earlier one', async () => {
    const { database } = current();
    const chats = createChatRepository(database);
    const owner = await insertTestUser(database);
    const created = [];
    for (let index = 0; index < 6; index += 1) created.push(await chats.create(owner, newChat));
    const chatIds = created.map((chat) => chat.id);
    for (const id of chatIds) expect(id).toMatch(/^chat_[0-9a-f]{32}$/);
    expect([...chatIds].sort()).toEqual(chatIds);

    const first = created[0]?.id as string;
    for (let save = 0; save < 6; save += 1)
      await chats.saveMessages(first, {
        append: [
          { role: 'assistant', parts: [{ type: 'text', text: `step ${save}` }] },
          { role: 'tool', parts: [{ type: 'text', text: `result ${save}` }] },
        ],
      });
    const messageIds = (await chats.listMessages(first)).map((message) => message.id);
    expect(messageIds).toHaveLength(12);
    for (const id of messageIds) expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect([...messageIds].sort()).toEqual(messageIds);
  });

  test("saveMessages with `after` stamps new messages after that time without reading the chat's last one", async () => {
    const { database } = current();
    const frozen = 1_760_000_000_000;
    const chats = createChatRepository(database, () => frozen);
    const owner = await insertTestUser(database);
    const chat = await chats.create(owner, newChat);
    const [first] = await chats.appendMessages(chat.id, [
      { role: 'user', parts: [{ type: 'text', text: 'first' }] },
    ]);
    expect(first?.createdAt).toBe(new Date(frozen).toISOString());
    // Read: strictly after the stored message, although the clock has not moved.
    const [read] = await chats.saveMessages(chat.id, {
      append: [{ role: 'assistant', parts: [{ type: 'text', text: 'read' }] }],
    });
    expect(read?.createdAt).toBe(new Date(frozen + 1).toISOString());
    // Vouched for: the caller's time is taken as the chat's last, and the clock's is later.
    const [vouched] = await chats.saveMessages(
      chat.id,
      { append: [{ role: 'assistant', parts: [{ type: 'text', text: 'vouched' }] }] },
      { after: new Date(frozen - 60_000).toISOString() },
    );
    expect(vouched?.createdAt).toBe(new Date(frozen).toISOString());
    const [later] = await chats.saveMessages(
      chat.id,
      { append: [{ role: 'assistant', parts: [{ type: 'text', text: 'later' }] }] },
      { after: new Date(frozen + 5).toISOString() },
    );
    expect(later?.createdAt).toBe(new Date(frozen + 6).toISOString());
  });

  test('saveMessages rewrites stored parts and appends in one transaction; a message of another chat rolls it all back', async () => {
    const { database } = current();
    const chats = createChatRepository(database);
    const owner = await insertTestUser(database);
    const chat = await chats.create(owner, newChat);
    const other = await chats.create(owner, newChat);
    const running: MessagePart = {
      type: 'tool_call',
      toolCallId: 'call_1',
      name: 'slow',
      arguments: '{}',
      status: 'running',
      durationMs: 0,
    };
    const [step] = await chats.saveMessages(chat.id, {
      append: [{ role: 'assistant', parts: [running] }],
    });
    const [foreign] = await chats.appendMessages(other.id, [
      { role: 'user', parts: [{ type: 'text', text: 'not yours' }] },
    ]);
    const finished: MessagePart = { ...running, status: 'succeeded', durationMs: 5 };
    const answer: MessagePart = {
      type: 'tool_result',
      toolCallId: 'call_1',
      name: 'slow',
      content: '"ok"',
      isError: false,
    };

    await expect(
      chats.saveMessages(chat.id, {
        update: [
          { id: step?.id as string, parts: [finished] },
          { id: foreign?.id as string, parts: [] },
        ],
        append: [{ role: 'tool', parts: [answer] }],
      }),
    ).rejects.toThrow(/is not a message of chat/);
    expect((await chats.listMessages(chat.id)).map((message) => message.parts)).toEqual([
      [running],
    ]);
    expect((await chats.listMessages(other.id))[0]?.parts).toEqual([
      { type: 'text', text: 'not yours' },
    ]);

    const appended = await chats.saveMessages(chat.id, {
      update: [{ id: step?.id as string, parts: [finished] }],
      append: [{ role: 'tool', parts: [answer] }],
    });
    expect(appended.map((message) => message.role)).toEqual(['tool']);
    const messages = await chats.listMessages(chat.id);
    expect(messages.map((message) => ({ id: message.id, parts: message.parts }))).toEqual([
      { id: step?.id as string, parts: [finished] },
      { id: appended[0]?.id as string, parts: [answer] },
    ]);
  });

  test("saveMessages moves the chat's time to its last message, unless asked to keep it", async () => {
    const { database } = current();
    const chats = createChatRepository(database);
    const owner = await insertTestUser(database);
    const chat = await chats.create(owner, newChat);
    const [kept] = await chats.saveMessages(
      chat.id,
      { append: [{ role: 'user', parts: [{ type: 'text', text: 'step' }] }] },
      { keepChatTime: true },
    );
    expect(kept?.role).toBe('user');
    expect((await chats.get(owner, chat.id))?.updatedAt).toBe(chat.updatedAt);
    const [moved] = await chats.saveMessages(chat.id, {
      append: [{ role: 'assistant', parts: [{ type: 'text', text: 'answer' }] }],
    });
    expect((await chats.get(owner, chat.id))?.updatedAt).toBe(moved?.createdAt);
    expect((await chats.listMessages(chat.id)).map((message) => message.id)).toEqual([
      kept?.id as string,
      moved?.id as string,
    ]);
  });

  test('saves of many chats at the same moment are all stored, in order; a refused one is refused alone', async () => {
    const { database } = current();
    const chats = createChatRepository(database);
    const owner = await insertTestUser(database);
    const created = await Promise.all(
      Array.from({ length: 6 }, () => chats.create(owner, newChat)),
    );
    const text = (value: string): MessagePart[] => [{ type: 'text', text: value }];
    // One save per chat and one that names a message of no chat, all asked for together; then a
    // second save per chat, again together (a chat's own saves follow one another, as a turn's do).
    const outcomes = await Promise.allSettled([
      ...created.map((chat, index) =>
        chats.saveMessages(chat.id, {
          append: [
            { role: 'user', parts: text(`question ${index}`) },
            { role: 'assistant', parts: text(`answer ${index}`) },
          ],
        }),
      ),
      chats.saveMessages(created[0]?.id as string, {
        update: [{ id: 'msg_missing', parts: text('lost') }],
        append: [{ role: 'user', parts: text('never stored') }],
      }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      ...created.map(() => 'fulfilled' as const),
      'rejected',
    ]);
    expect(String((outcomes[6] as PromiseRejectedResult).reason)).toMatch(
      /"msg_missing" is not a message of chat/,
    );
    await Promise.all(
      created.map((chat, index) =>
        chats.saveMessages(chat.id, { append: [{ role: 'user', parts: text(`more ${index}`) }] }),
      ),
    );
    for (const [index, chat] of created.entries()) {
      const stored = await chats.listMessages(chat.id);
      expect(stored.map((message) => message.parts)).toEqual([
        text(`question ${index}`),
        text(`answer ${index}`),
        text(`more ${index}`),
      ]);
    }
  });

  test('a corrupt parts column reads as no parts instead of failing the chat', async () => {
    const { database } = current();
    const chats = createChatRepository(database);
    const owner = await insertTestUser(database);
    const chat = await chats.create(owner, newChat);
    await chats.appendMessages(chat.id, [
      { role: 'user', parts: [{ type: 'text', text: 'fine' }] },
    ]);
    const stamp = new Date(Date.now() + 60_000).toISOString();
    await database.db
      .insertInto('messages')
      .values({
        id: 'msg_corrupt',
        chat_id: chat.id,
        role: 'assistant',
        parts: JSON.stringify([
          { type: 'tool_call', name: 42 },
          { type: 'text', text: 'kept' },
        ]),
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
    const messages = await chats.listMessages(chat.id);
    expect(messages.at(-1)?.parts).toEqual([{ type: 'text', text: 'kept' }]);
  });

  test('an append of many messages at once (past the prepared statements) keeps them all, in order', async () => {
    const { database } = current();
    const chats = createChatRepository(database);
    const owner = await insertTestUser(database);
    const chat = await chats.create(owner, newChat);
    for (const count of [1, 8, 9, 20]) {
      const texts = Array.from({ length: count }, (_, index) => `${count}-${index}`);
      const stored = await chats.appendMessages(
        chat.id,
        texts.map((text) => ({ role: 'user', parts: [{ type: 'text', text }] })),
      );
      expect(stored).toHaveLength(count);
    }
    const listed = await chats.listMessages(chat.id);
    const expected = [1, 8, 9, 20].flatMap((count) =>
      Array.from({ length: count }, (_, index) => `${count}-${index}`),
    );
    expect(listed.map((message) => (message.parts[0] as { text: string }).text)).toEqual(expected);
  });

  test('deleting a chat deletes its messages', async () => {
    const { database } = current();
    const chats = createChatRepository(database);
    const owner = await insertTestUser(database);
    const chat = await chats.create(owner, newChat);
    await chats.appendMessages(chat.id, [{ role: 'user', parts: [{ type: 'text', text: 'bye' }] }]);
    await chats.delete(owner, chat.id);
    const left = await database.db
      .selectFrom('messages')
      .select('id')
      .where('chat_id', '=', chat.id)
      .execute();
    expect(left).toEqual([]);
  });
});
