/**
 * The turn event log on a real database: events are stored in batches (far
 * fewer rows than events), a follower on another instance gets every event in
 * order, `done` becomes visible only after the chat is released, a follower
 * of a turn whose instance died is told so instead of waiting, and many turns
 * streaming at once share their inserts without one failing turn holding the
 * others back; a follower on the running instance listens for its abort once,
 * not once per event.
 */
import { expect, test } from 'bun:test';
import type { TurnStreamEvent } from '@mango/shared';
import { createLocalChangeFeed } from '../../../../src/db/change-feed';
import { createChatRepository } from '../../../../src/services/chat/chat-repository';
import { resumeAfter } from '../../../../src/services/chat/chat-turn-service';
import { createTurnEventLog } from '../../../../src/services/chat/turn-events/turn-event-log';
import {
  createTurnEventStore,
  type TurnEventBatch,
  type TurnEventRecord,
  type TurnEventStore,
  type TurnRecord,
} from '../../../../src/services/chat/turn-events/turn-event-store';
import { describeEachDatabase } from '../../../support/test-databases';
import { insertTestUser } from '../../../support/test-rows';

/** `store`, with every appendBatches call's batches pushed onto `calls`. */
function recordingAppends(store: TurnEventStore, calls: TurnEventBatch[][]): TurnEventStore {
  return {
    ...store,
    appendBatches: (batches) => {
      calls.push([...batches]);
      return store.appendBatches(batches);
    },
  };
}

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

  test('turns streaming at once share one insert per flush, each turn’s batches in order', async () => {
    const { database } = current();
    const turns = await Promise.all(Array.from({ length: 30 }, () => newTurn()));
    const store = createTurnEventStore(database);
    const calls: TurnEventBatch[][] = [];
    const log = createTurnEventLog({
      store: recordingAppends(store, calls),
      changes: database.changes,
      isRunning: async () => true,
      flushDelayMs: 20,
    });
    const recorders = turns.map((turn) => log.open(turn));
    for (let round = 0; round < 3; round++) {
      for (const [index, recorder] of recorders.entries())
        recorder.append({ type: 'text_delta', delta: `${index}.${round} ` });
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    await Promise.all(
      recorders.map((recorder) =>
        recorder.end({ type: 'done', status: 'completed', iterations: 1 }, async () => {}),
      ),
    );
    // Three flushes of thirty turns and the ends, instead of ninety inserts and thirty more.
    expect(calls.length).toBeLessThanOrEqual(6);
    expect(calls[0]?.map((batch) => batch.turnId).sort()).toEqual(
      turns.map((turn) => turn.id).sort(),
    );
    for (const [index, turn] of turns.entries()) {
      const records = await store.read(turn.id, 0);
      expect(records.map((record) => record.seq)).toEqual([1, 2, 3, 4]);
      expect(records.slice(0, 3).map((record) => record.event)).toEqual(
        [0, 1, 2].map((round) => ({ type: 'text_delta', delta: `${index}.${round} ` })),
      );
      expect((await store.get(turn.id))?.status).toBe('completed');
    }
  });

  test('a turn whose events cannot be stored does not hold back the others’', async () => {
    const { database } = current();
    const [gone, kept] = [await newTurn(), await newTurn()];
    const store = createTurnEventStore(database);
    const warnings: unknown[] = [];
    const log = createTurnEventLog({
      store,
      changes: database.changes,
      isRunning: async () => true,
      flushDelayMs: 20,
      logger: {
        debug: () => {},
        info: () => {},
        warn: (message, fields) => warnings.push({ message, ...fields }),
        error: () => {},
      },
    });
    const goneRecorder = log.open(gone);
    const keptRecorder = log.open(kept);
    // The chat is deleted while its turn streams: its turn row goes, and its events with it.
    await database.db.deleteFrom('chats').where('id', '=', gone.chatId).execute();
    goneRecorder.append({ type: 'text_delta', delta: 'lost' });
    keptRecorder.append({ type: 'text_delta', delta: 'kept' });
    await keptRecorder.end({ type: 'done', status: 'completed', iterations: 1 }, async () => {});
    expect((await store.read(kept.id, 0)).map((record) => record.event)).toEqual([
      { type: 'text_delta', delta: 'kept' },
      { type: 'done', status: 'completed', iterations: 1 },
    ]);
    expect(warnings).toContainEqual(expect.objectContaining({ turnId: gone.id, events: 1 }));
    expect(warnings).not.toContainEqual(expect.objectContaining({ turnId: kept.id }));
    // Its events are retried alone, and given up when it ends: nothing is retried for ever.
    const calls: TurnEventBatch[][] = [];
    const spied = createTurnEventLog({
      store: recordingAppends(store, calls),
      changes: database.changes,
      isRunning: async () => true,
      flushDelayMs: 10,
      logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    const [other, third] = [await newTurn(), await newTurn()];
    const lost = spied.open({ ...gone, id: `${gone.id}-again` });
    const a = spied.open(other);
    const b = spied.open(third);
    lost.append({ type: 'text_delta', delta: 'lost' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    a.append({ type: 'text_delta', delta: 'a' });
    b.append({ type: 'text_delta', delta: 'b' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const shared = calls.filter((batches) => batches.length > 1);
    expect(shared.length).toBeGreaterThan(0);
    expect(shared.at(-1)?.map((batch) => batch.turnId)).not.toContain(`${gone.id}-again`);
    await lost.end({ type: 'done', status: 'error', iterations: 0 }, async () => {});
    const afterEnd = calls.length;
    a.append({ type: 'text_delta', delta: 'a2' });
    await a.end({ type: 'done', status: 'completed', iterations: 1 }, async () => {});
    await b.end({ type: 'done', status: 'completed', iterations: 1 }, async () => {});
    expect(
      calls
        .slice(afterEnd)
        .flat()
        .map((batch) => batch.turnId),
    ).not.toContain(`${gone.id}-again`);
    expect((await store.read(other.id, 0)).map((record) => record.seq)).toEqual([1, 2, 3]);
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

test('a local follower listens for its abort once, however many events it waits for, and ends when it aborts mid-wait', async () => {
  const store = {
    appendBatches: async () => {},
    finish: async () => {},
  } as unknown as TurnEventStore;
  const log = createTurnEventLog({
    store,
    changes: createLocalChangeFeed(),
    isRunning: async () => true,
  });
  const turn = { id: 'turn_local', chatId: 'chat_local' } as TurnRecord;
  const recorder = log.open(turn);
  const follower = new AbortController();
  const added: string[] = [];
  const removed: string[] = [];
  const { signal } = follower;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<typeof add>) => {
    added.push(args[0]);
    return add(...args);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    removed.push(args[0]);
    return remove(...args);
  }) as typeof signal.removeEventListener;
  const seen: number[] = [];
  const following = (async () => {
    for await (const record of log.follow(turn, 0, signal)) seen.push(record.seq);
  })();
  // Each event is appended after the follower caught up, so it waits 50 times.
  for (let index = 0; index < 50; index++) {
    recorder.append({ type: 'text_delta', delta: `${index}` });
    await Bun.sleep(0);
  }
  expect(seen).toHaveLength(50);
  expect(added).toEqual(['abort']);
  follower.abort();
  await following;
  expect(seen).toHaveLength(50);
  expect(removed).toEqual(['abort']);
});

test('resumeAfter reads ids of this turn, replays for another, refuses garbage', () => {
  const turn = { id: 'turn_a' } as TurnRecord;
  expect(resumeAfter(turn, undefined)).toBe(0);
  expect(resumeAfter(turn, 'turn_a:7')).toBe(7);
  expect(resumeAfter(turn, 'turn_b:7')).toBe(0);
  for (const bad of ['7', 'turn_a:', 'turn_a:x', 'turn_a:-1', ':3'])
    expect(() => resumeAfter(turn, bad)).toThrow(/Last-Event-ID/);
});
