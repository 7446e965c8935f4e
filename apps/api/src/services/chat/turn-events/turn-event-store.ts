/**
 * Where turns and their events are kept for replay (docs/chat-turns.md#re-attaching):
 * `turns` holds each chat's latest turn (its ids and status) and `turn_events`
 * its events in batches — one row per flush, not per event, so a streaming
 * answer of thousands of deltas costs a few inserts. Starting a turn forgets
 * the chat's earlier turns and their events: their outcome is in the stored
 * messages.
 */
import { type TurnStatus, TurnStreamEvent } from '@mango/shared';
import { Value } from '@sinclair/typebox/value';
import type { Selectable } from 'kysely';
import type { AppDatabase } from '../../../db/database';
import { prepareQuery } from '../../../db/prepared-query';
import type { TurnsTable } from '../../../db/schema';
import { readJson, readTimestamp, writeJson, writeTimestamp } from '../../../db/values';

/** One event of a turn with its place in the turn (1 = `turn_started`). */
export interface TurnEventRecord {
  seq: number;
  event: TurnStreamEvent;
}

export type StoredTurnStatus = 'running' | TurnStatus;

/** Consecutive events of one turn, stored as one row. */
export interface TurnEventBatch {
  turnId: string;
  events: readonly TurnEventRecord[];
}

/**
 * Rows per INSERT: four parameters each, far below SQLite's 32,766 and
 * PostgreSQL's 65,535 parameters per statement.
 */
export const APPEND_ROWS_PER_STATEMENT = 250;

export interface TurnRecord {
  id: string;
  chatId: string;
  userMessageId: string;
  assistantMessageId: string;
  model: string;
  status: StoredTurnStatus;
  startedAt: string;
  endedAt?: string;
}

export type NewTurn = Pick<
  TurnRecord,
  'id' | 'chatId' | 'userMessageId' | 'assistantMessageId' | 'model'
>;

export interface TurnEventStore {
  /** Records a new running turn as the chat's latest; the chat's earlier turns go. */
  create(turn: NewTurn): Promise<TurnRecord>;
  /** Stores consecutive events of a running turn as one batch. */
  append(turnId: string, events: readonly TurnEventRecord[]): Promise<void>;
  /**
   * Stores a batch for each of several turns in one statement (per
   * `APPEND_ROWS_PER_STATEMENT` batches): all of them, or — when it fails —
   * none.
   */
  appendBatches(batches: readonly TurnEventBatch[]): Promise<void>;
  finish(turnId: string, status: TurnStatus): Promise<void>;
  get(turnId: string): Promise<TurnRecord | undefined>;
  /** The chat's latest turn, running or ended. */
  latest(chatId: string): Promise<TurnRecord | undefined>;
  /** The turn's stored events after `afterSeq`, in order. */
  read(turnId: string, afterSeq: number): Promise<TurnEventRecord[]>;
}

const STATUSES: ReadonlySet<string> = new Set([
  'running',
  'completed',
  'iteration_limit',
  'cancelled',
  'error',
]);

type TurnRow = Selectable<TurnsTable>;

function toTurn(row: TurnRow): TurnRecord {
  return {
    id: row.id,
    chatId: row.chat_id,
    userMessageId: row.user_message_id,
    assistantMessageId: row.assistant_message_id,
    model: row.model,
    status: (STATUSES.has(row.status) ? row.status : 'error') as StoredTurnStatus,
    startedAt: readTimestamp(row.started_at),
    ...(row.ended_at ? { endedAt: readTimestamp(row.ended_at) } : {}),
  };
}

const turnColumns = [
  'id',
  'chat_id',
  'user_message_id',
  'assistant_message_id',
  'model',
  'status',
  'started_at',
  'ended_at',
] as const;

// The statements every turn makes, prepared once per database (db/prepared-query.ts).
const deleteChatTurnEvents = prepareQuery<{ chatId: string }>((db, slot) =>
  db
    .deleteFrom('turn_events')
    .where(
      'turn_id',
      'in',
      db.selectFrom('turns').select('id').where('chat_id', '=', slot('chatId')),
    ),
);

const deleteChatTurns = prepareQuery<{ chatId: string }>((db, slot) =>
  db.deleteFrom('turns').where('chat_id', '=', slot('chatId')),
);

const insertTurn = prepareQuery<{
  id: string;
  chatId: string;
  userMessageId: string;
  assistantMessageId: string;
  model: string;
  startedAt: string;
}>((db, slot) =>
  db.insertInto('turns').values({
    id: slot('id'),
    chat_id: slot('chatId'),
    user_message_id: slot('userMessageId'),
    assistant_message_id: slot('assistantMessageId'),
    model: slot('model'),
    status: 'running',
    started_at: slot('startedAt'),
    ended_at: null,
  }),
);

const finishTurn = prepareQuery<{ status: TurnStatus; endedAt: string; turnId: string }>(
  (db, slot) =>
    db
      .updateTable('turns')
      .set({ status: slot('status'), ended_at: slot('endedAt') })
      .where('id', '=', slot('turnId')),
);

const selectTurn = prepareQuery<{ turnId: string }, TurnRow>((db, slot) =>
  db.selectFrom('turns').select(turnColumns).where('id', '=', slot('turnId')),
);

/** A stored batch as records; a corrupt event is left out rather than breaking the replay. */
function readBatch(value: unknown, firstSeq: number): TurnEventRecord[] {
  const events = readJson(value);
  if (!Array.isArray(events)) return [];
  const records: TurnEventRecord[] = [];
  events.forEach((event, index) => {
    if (Value.Check(TurnStreamEvent, event)) records.push({ seq: firstSeq + index, event });
  });
  return records;
}

export function createTurnEventStore(
  database: AppDatabase,
  now: () => number = Date.now,
): TurnEventStore {
  const { db } = database;

  const appendBatches: TurnEventStore['appendBatches'] = async (batches) => {
    const rows = batches.flatMap(({ turnId, events }) => {
      const first = events[0];
      const last = events.at(-1);
      if (!first || !last) return [];
      return [
        {
          turn_id: turnId,
          first_seq: first.seq,
          last_seq: last.seq,
          events: writeJson(events.map((record) => record.event)),
        },
      ];
    });
    if (rows.length === 0) return;
    if (rows.length <= APPEND_ROWS_PER_STATEMENT) {
      await db.insertInto('turn_events').values(rows).execute();
      return;
    }
    await db.transaction().execute(async (transaction) => {
      for (let start = 0; start < rows.length; start += APPEND_ROWS_PER_STATEMENT)
        await transaction
          .insertInto('turn_events')
          .values(rows.slice(start, start + APPEND_ROWS_PER_STATEMENT))
          .execute();
    });
  };

  return {
    async create(turn) {
      const startedAt = writeTimestamp(now());
      await db.transaction().execute(async (transaction) => {
        await transaction.executeQuery(deleteChatTurnEvents(transaction, { chatId: turn.chatId }));
        await transaction.executeQuery(deleteChatTurns(transaction, { chatId: turn.chatId }));
        await transaction.executeQuery(
          insertTurn(transaction, {
            id: turn.id,
            chatId: turn.chatId,
            userMessageId: turn.userMessageId,
            assistantMessageId: turn.assistantMessageId,
            model: turn.model,
            startedAt,
          }),
        );
      });
      return { ...turn, status: 'running', startedAt: readTimestamp(startedAt) };
    },

    append: (turnId, events) => appendBatches([{ turnId, events }]),
    appendBatches,

    async finish(turnId, status) {
      await db.executeQuery(finishTurn(db, { status, endedAt: writeTimestamp(now()), turnId }));
    },

    async get(turnId) {
      const [row] = (await db.executeQuery(selectTurn(db, { turnId }))).rows;
      return row ? toTurn(row) : undefined;
    },

    async latest(chatId) {
      const row = await db
        .selectFrom('turns')
        .select(turnColumns)
        .where('chat_id', '=', chatId)
        .orderBy('started_at', 'desc')
        .executeTakeFirst();
      return row ? toTurn(row) : undefined;
    },

    async read(turnId, afterSeq) {
      const rows = await db
        .selectFrom('turn_events')
        .select(['first_seq', 'events'])
        .where('turn_id', '=', turnId)
        .where('last_seq', '>', afterSeq)
        .orderBy('first_seq', 'asc')
        .execute();
      return rows
        .flatMap((row) => readBatch(row.events, Number(row.first_seq)))
        .filter((record) => record.seq > afterSeq);
    },
  };
}
