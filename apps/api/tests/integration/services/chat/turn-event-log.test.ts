/**
 * The turn event log on a real database: events are stored in batches (far
 * fewer rows than events), a follower on another instance gets every event in
 * order, `done` becomes visible only after the chat is released, and a
 * follower of a turn whose instance died is told so instead of waiting.
 */
import { expect, test } from 'bun:test';
import type { TurnStreamEvent } from '@mango/shared';
import { createChatRepository } from '../../../../src/services/chat/chat-repository';
import { resumeAfter } from '../../../../src/services/chat/chat-turn-service';
import { createTurnEventLog } from '../../../../src/services/chat/turn-events/turn-event-log';
import {
  createTurnEventStore,
  type TurnEventRecord,
  type TurnRecord,
} from '../../../../src/services/chat/turn-events/turn-event-store';
import { describeEachDatabase } from '../../../support/test-databases';
import { insertTestUser } from '../../../support/test-rows';

async function collect(events: AsyncGenerator<TurnEventRecord>): Promise<TurnEventRecord[]> {
  const records: TurnEventRecord[] = [];
  for await (const record of events) records.push(record);
  return records;
}

describeEachDatabase('the turn event log', (_kind, current) => {
  async function newTurn(): Promise<TurnRecord> {
    const { database } = current();
    const userId = await insertTestUser(database);
    const chat = await createChatRepository(database).create(userId, {
      title: 'Log test',
      mode: 'chat',
      workingDirectory: null,
      restrictToWorkingDirectory: true,
      model: 'openai:gpt-5',
    });
    return createTurnEventStore(database).create({
      id: `turn_${crypto.randomUUID()}`,
      chatId: chat.id,
      userMessageId: 'msg_user',
      assistantMessageId: 'msg_assistant',
      model: 'openai:gpt-5',
    });
  }

  test('500 events are stored in a handful of batches and followed elsewhere in order; done waits for the release', async () => {
    const { database } = current();
    const turn = await newTurn();
    const store = createTurnEventStore(database);
    let released = false;
    const running = createTurnEventLog({
      store,
      changes: database.changes,
      isRunning: async () => !released,
    });
    const elsewhere = createTurnEventLog({
      store,
      changes: database.changes,
      isRunning: async () => !released,
      pollMs: 50,
    });
    const recorder = running.open(turn);
    const follower = new AbortController();
    const remote = collect(elsewhere.follow(turn, 0, follower.signal));
    const local = collect(running.follow(turn, 0, follower.signal));
    const deltas: TurnStreamEvent[] = Array.from({ length: 500 }, (_, index) => ({
      type: 'text_delta',
      delta: `${index} `,
    }));
    for (const event of deltas) recorder.append(event);
    let doneSeenBeforeRelease = false;
    await recorder.end({ type: 'done', status: 'completed', iterations: 1 }, async () => {
      const shown = await collect(running.follow(turn, 500, AbortSignal.timeout(20)));
      doneSeenBeforeRelease = shown.length > 0;
      released = true;
    });
    expect(doneSeenBeforeRelease).toBe(false);
    const [remoteRecords, localRecords] = await Promise.all([remote, local]);
    const expected: TurnStreamEvent[] = [
      ...deltas,
      { type: 'done', status: 'completed', iterations: 1 },
    ];
    expect(localRecords.map((record) => record.event)).toEqual(expected);
    expect(localRecords.map((record) => record.seq)).toEqual(expected.map((_, index) => index + 1));
    expect(remoteRecords).toEqual(localRecords);
    const rows = await database.db
      .selectFrom('turn_events')
      .select('first_seq')
      .where('turn_id', '=', turn.id)
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(6);
    expect((await store.get(turn.id))?.status).toBe('completed');
    // Resuming after an event gives exactly the rest.
    const rest = await collect(elsewhere.follow(turn, 498, new AbortController().signal));
    expect(rest.map((record) => record.seq)).toEqual([499, 500, 501]);
  });

  test('a follower of a turn whose instance died is told it was interrupted', async () => {
    const { database } = current();
    const turn = await newTurn();
    const store = createTurnEventStore(database);
    const dead = createTurnEventLog({
      store,
      changes: database.changes,
      isRunning: async () => true,
    });
    const recorder = dead.open(turn);
    recorder.append({ type: 'turn_completed', finishReason: 'tool_calls' });
    recorder.append({ type: 'text_delta', delta: 'cut here' });
    await new Promise((resolve) => setTimeout(resolve, 120));
    // The instance is gone: no end, no done; the chat's claim is no longer fresh.
    const observer = createTurnEventLog({
      store,
      changes: database.changes,
      isRunning: async () => false,
      pollMs: 50,
    });
    const records = await collect(observer.follow(turn, 0, new AbortController().signal));
    expect(records.map((record) => record.event.type)).toEqual([
      'turn_completed',
      'text_delta',
      'error',
      'done',
    ]);
    expect(records[2]?.event).toMatchObject({ code: 'aborted', retryable: true });
    expect(records[3]?.event).toEqual({ type: 'done', status: 'error', iterations: 1 });
    expect(records.map((record) => record.seq)).toEqual([1, 2, 3, 4]);
  });

  test('a new turn forgets the chat’s earlier turn and its events', async () => {
    const { database } = current();
    const turn = await newTurn();
    const store = createTurnEventStore(database);
    await store.append(turn.id, [{ seq: 1, event: { type: 'text_delta', delta: 'old' } }]);
    await store.create({ ...turn, id: `${turn.id}-next` });
    expect(await store.get(turn.id)).toBeUndefined();
    expect(await store.read(turn.id, 0)).toEqual([]);
    expect((await store.latest(turn.chatId))?.id).toBe(`${turn.id}-next`);
  });
});

test('resumeAfter reads ids of this turn, replays for another, refuses garbage', () => {
  const turn = { id: 'turn_a' } as TurnRecord;
  expect(resumeAfter(turn, undefined)).toBe(0);
  expect(resumeAfter(turn, 'turn_a:7')).toBe(7);
  expect(resumeAfter(turn, 'turn_b:7')).toBe(0);
  for (const bad of ['7', 'turn_a:', 'turn_a:x', 'turn_a:-1', ':3'])
    expect(() => resumeAfter(turn, bad)).toThrow(/Last-Event-ID/);
});
