/**
 * Reading a chat whose turn died with a tool call in flight: while a turn
 * holds the chat (on any instance with a fresh heartbeat), a stored `running`
 * call is shown as running; once no turn does, the reload shows it `aborted`,
 * without rewriting the stored message (the next turn stores the repair).
 */
import { expect, test } from 'bun:test';
import type { MessagePart } from '@mango/shared';
import { createChatRepository } from '../../../../src/services/chat/chat-repository';
import { createChatService } from '../../../../src/services/chat/chat-service';
import { createDatabaseRunningTurns } from '../../../../src/services/chat/running-turns';
import { createModelCatalog } from '../../../../src/services/providers/model-catalog';
import { createProviderRegistry } from '../../../../src/services/providers/provider-registry';
import { describeEachDatabase } from '../../../support/test-databases';
import { insertTestUser } from '../../../support/test-rows';

const runningCall: MessagePart = {
  type: 'tool_call',
  toolCallId: 'call_slow',
  name: 'slow',
  arguments: '{}',
  status: 'running',
  durationMs: 0,
};
const finishedCall: MessagePart = {
  type: 'tool_call',
  toolCallId: 'call_done',
  name: 'echo',
  arguments: '{}',
  status: 'succeeded',
  durationMs: 3,
};

const noModels = createModelCatalog({ providers: createProviderRegistry({}) });

describeEachDatabase('reading the messages of an interrupted turn', (_kind, current) => {
  test('running while a turn holds the chat, aborted once none does; the stored row is untouched', async () => {
    const { database } = current();
    const chats = createChatRepository(database);
    let clock = Date.now();
    const running = createDatabaseRunningTurns(database, {
      now: () => clock,
      heartbeatMs: 60_000,
      staleAfterMs: 15_000,
    });
    const service = createChatService({ chats, models: noModels, running });
    const owner = await insertTestUser(database);
    const chat = await chats.create(owner, {
      title: 'Crash',
      mode: 'chat',
      workingDirectory: null,
      restrictToWorkingDirectory: true,
      model: null,
    });
    await chats.appendMessages(chat.id, [
      { role: 'user', parts: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', parts: [finishedCall, runningCall] },
    ]);
    const callsOf = async () =>
      (await service.messages(owner, chat.id))[1]?.parts.map((part) =>
        part.type === 'tool_call' ? [part.toolCallId, part.status, part.errorCode] : part.type,
      );

    const claim = await running.begin(chat.id);
    expect(claim).toBeDefined();
    expect(await running.isRunning(chat.id)).toBe(true);
    expect(await callsOf()).toEqual([
      ['call_done', 'succeeded', undefined],
      ['call_slow', 'running', undefined],
    ]);

    // Another instance (same database) sees the fresh claim as a running turn too.
    const elsewhere = createDatabaseRunningTurns(database, { now: () => clock });
    expect(await elsewhere.isRunning(chat.id)).toBe(true);

    // The instance dies: its heartbeat stops, and the claim goes stale.
    clock += 16_000;
    expect(await elsewhere.isRunning(chat.id)).toBe(false);
    const otherService = createChatService({
      chats,
      models: noModels,
      running: elsewhere,
    });
    const view = await otherService.messages(owner, chat.id);
    expect(view[1]?.parts).toEqual([
      finishedCall,
      { ...runningCall, status: 'aborted', errorCode: 'aborted' },
    ]);
    expect((await chats.listMessages(chat.id))[1]?.parts).toEqual([finishedCall, runningCall]);
    await claim?.end();
  });
});
