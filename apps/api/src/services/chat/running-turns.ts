/**
 * The turn running in each chat: at most one per chat, and cancellable from
 * any API instance (docs/operations.md#the-database). A turn runs on the instance that received it;
 * the database store records it in `chat_turns`, where that instance keeps a
 * heartbeat (one beat a second for all the claims it holds) and watches for a
 * cancel request any instance may set, so a cancel
 * sent to another instance behind a load balancer still reaches it (within one
 * heartbeat). A row whose heartbeat stopped belongs to a crashed instance and
 * no longer blocks the chat.
 */
import type { AppDatabase } from '../../db/database';
import { prepareQuery } from '../../db/prepared-query';
import { readBoolean, writeTimestamp } from '../../db/values';

export interface RunningTurn {
  readonly signal: AbortSignal;
  /** Cancels the turn on this instance at once. */
  abort(): void;
  /** Frees the chat for its next turn. */
  end(): Promise<void>;
}

export interface RunningTurns {
  /**
   * Claims the chat for the turn `turnId` (a new id when absent); undefined
   * when a turn is already running in it (on any instance).
   */
  begin(chatId: string, turnId?: string): Promise<RunningTurn | undefined>;
  /** Asks the chat's running turn to stop; false when none is running. */
  cancel(chatId: string): Promise<boolean>;
  /** Whether a turn is running in the chat (on any instance whose heartbeat is fresh). */
  isRunning(chatId: string): Promise<boolean>;
  /** Cancels every turn running on this instance (at shutdown); returns how many. */
  cancelAll(): number;
  /**
   * Frees the chats this instance claimed before it last stopped without
   * freeing them (a crash), so they take a new turn at once; returns how many.
   */
  releaseLeftovers(): Promise<number>;
}

/** Running turns for a single process (tests, or a deployment of one instance). */
export function createMemoryRunningTurns(): RunningTurns {
  const running = new Map<string, AbortController>();
  return {
    async begin(chatId) {
      if (running.has(chatId)) return undefined;
      const controller = new AbortController();
      running.set(chatId, controller);
      return {
        signal: controller.signal,
        abort: () => controller.abort(),
        end: async () => {
          if (running.get(chatId) === controller) running.delete(chatId);
        },
      };
    },
    async cancel(chatId) {
      const controller = running.get(chatId);
      controller?.abort();
      return controller !== undefined;
    },
    isRunning: async (chatId) => running.has(chatId),
    cancelAll() {
      for (const controller of running.values()) controller.abort();
      return running.size;
    },
    // Nothing outlives this process's memory.
    releaseLeftovers: async () => 0,
  };
}

/** Claims refreshed by one statement of a beat (two parameters each, well within every limit). */
export const CLAIMS_PER_BEAT_STATEMENT = 500;

export interface DatabaseRunningTurnsOptions {
  /** How often the running instance refreshes its claim and looks for a cancel (default 1 s). */
  heartbeatMs?: number;
  /** A claim not refreshed for this long is a crashed instance's (default 15 s). */
  staleAfterMs?: number;
  /**
   * Names this instance in its claims, the same across restarts
   * (`MANGO_INSTANCE_ID`; docs/operations.md#scale-out).
   * Without one, a crashed instance's claims block their chats until stale.
   */
  instanceId?: string;
  now?: () => number;
}

// A claim's statements, prepared once per database (db/prepared-query.ts): every turn makes them.
const deleteStaleClaim = prepareQuery<{ chatId: string; staleBefore: string }>((db, slot) =>
  db
    .deleteFrom('chat_turns')
    .where('chat_id', '=', slot('chatId'))
    .where('heartbeat_at', '<', slot('staleBefore')),
);

const insertClaim = prepareQuery<{
  chatId: string;
  turnId: string;
  stamp: string;
  instanceId: string | null;
}>((db, slot) =>
  db
    .insertInto('chat_turns')
    .values({
      chat_id: slot('chatId'),
      turn_id: slot('turnId'),
      started_at: slot('stamp'),
      heartbeat_at: slot('stamp'),
      cancel_requested: false,
      instance_id: slot('instanceId'),
    })
    .onConflict((conflict) => conflict.column('chat_id').doNothing()),
);

const claimOwner = prepareQuery<{ chatId: string }, { turn_id: string }>((db, slot) =>
  db.selectFrom('chat_turns').select('turn_id').where('chat_id', '=', slot('chatId')),
);

const deleteClaim = prepareQuery<{ chatId: string; turnId: string }>((db, slot) =>
  db
    .deleteFrom('chat_turns')
    .where('chat_id', '=', slot('chatId'))
    .where('turn_id', '=', slot('turnId')),
);

export function createDatabaseRunningTurns(
  database: AppDatabase,
  options: DatabaseRunningTurnsOptions = {},
): RunningTurns {
  const { db } = database;
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const staleAfterMs = options.staleAfterMs ?? 15_000;
  const now = options.now ?? Date.now;
  const freshSince = () => writeTimestamp(now() - staleAfterMs);
  /** The claims this instance holds, by chat: each beat refreshes them all at once. */
  const claims = new Map<string, { turnId: string; controller: AbortController }>();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let beating = false;

  /**
   * One beat for every claim held here: a read of their cancel flags and one
   * update of their heartbeats per `CLAIMS_PER_BEAT_STATEMENT` claims, rather
   * than two statements per running turn every second.
   */
  const beat = async () => {
    if (beating) return;
    beating = true;
    try {
      const held = [...claims];
      for (let start = 0; start < held.length; start += CLAIMS_PER_BEAT_STATEMENT) {
        const chunk = held.slice(start, start + CLAIMS_PER_BEAT_STATEMENT);
        const chatIds = chunk.map(([chatId]) => chatId);
        // Turn ids are unique: a row another instance claimed since (a new turn id) is not touched.
        const turnIds = chunk.map(([, claim]) => claim.turnId);
        const rows = await db
          .selectFrom('chat_turns')
          .select(['chat_id', 'turn_id', 'cancel_requested'])
          .where('chat_id', 'in', chatIds)
          .where('turn_id', 'in', turnIds)
          .execute();
        for (const row of rows) {
          const claim = claims.get(row.chat_id);
          if (claim?.turnId === row.turn_id && readBoolean(row.cancel_requested))
            claim.controller.abort();
        }
        await db
          .updateTable('chat_turns')
          .set({ heartbeat_at: writeTimestamp(now()) })
          .where('chat_id', 'in', chatIds)
          .where('turn_id', 'in', turnIds)
          .execute();
      }
    } catch {
      // The database is briefly unavailable or closing; the next beat tries again.
    } finally {
      beating = false;
    }
  };

  return {
    async begin(chatId, turnId = crypto.randomUUID()) {
      if (claims.has(chatId)) return undefined;
      const stamp = writeTimestamp(now());
      await db.executeQuery(deleteStaleClaim(db, { chatId, staleBefore: freshSince() }));
      await db.executeQuery(
        insertClaim(db, {
          chatId,
          turnId,
          stamp,
          instanceId: options.instanceId ?? null,
        }),
      );
      const [owner] = (await db.executeQuery(claimOwner(db, { chatId }))).rows;
      if (owner?.turn_id !== turnId || claims.has(chatId)) return undefined;

      const controller = new AbortController();
      claims.set(chatId, { turnId, controller });
      heartbeat ??= setInterval(beat, heartbeatMs);
      let ended = false;
      return {
        signal: controller.signal,
        abort: () => controller.abort(),
        async end() {
          if (ended) return;
          ended = true;
          if (claims.get(chatId)?.controller === controller) claims.delete(chatId);
          if (claims.size === 0) {
            clearInterval(heartbeat);
            heartbeat = undefined;
          }
          await db.executeQuery(deleteClaim(db, { chatId, turnId })).catch(() => {});
        },
      };
    },

    async cancel(chatId) {
      const controller = claims.get(chatId)?.controller;
      controller?.abort();
      const result = await db
        .updateTable('chat_turns')
        .set({ cancel_requested: true })
        .where('chat_id', '=', chatId)
        .where('heartbeat_at', '>=', freshSince())
        .executeTakeFirst();
      return controller !== undefined || Number(result.numUpdatedRows) > 0;
    },

    async isRunning(chatId) {
      if (claims.has(chatId)) return true;
      const row = await db
        .selectFrom('chat_turns')
        .select('turn_id')
        .where('chat_id', '=', chatId)
        .where('heartbeat_at', '>=', freshSince())
        .executeTakeFirst();
      return row !== undefined;
    },

    cancelAll() {
      for (const { controller } of claims.values()) controller.abort();
      return claims.size;
    },

    async releaseLeftovers() {
      if (!options.instanceId) return 0;
      let query = db.deleteFrom('chat_turns').where('instance_id', '=', options.instanceId);
      // This instance's own turns of this run stay claimed.
      const mine = [...claims.keys()];
      if (mine.length > 0) query = query.where('chat_id', 'not in', mine);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
