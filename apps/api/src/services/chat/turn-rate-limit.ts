/**
 * Per-user turn limits (docs/security.md#rate-limits): how many turns a user
 * may start per minute, and how many may run at once. Both are counted in the
 * database — starts in `turn_starts`, running turns in `chat_turns` — under a
 * per-user lock that holds across instances (an advisory lock on PostgreSQL),
 * so two instances behind a load balancer cannot each let a user past the
 * limit. The check wraps the chat's claim: checking, claiming and recording
 * the start happen under that one lock, so simultaneous requests cannot slip
 * between the count and the claim.
 */
import type { AppDatabase } from '../../db/database';
import { createRowId } from '../../db/row-ids';
import { readTimestamp, writeTimestamp } from '../../db/values';
import { ApiError } from '../../errors';
import type { RunningTurns } from './running-turns';

export interface TurnLimits {
  /** Turns one user may start in any 60 s; 0 = no limit (MANGO_TURNS_PER_MINUTE). */
  startsPerMinute: number;
  /** Turns one user may have running at once, across instances; 0 = no limit (MANGO_CONCURRENT_TURNS). */
  concurrent: number;
}

export const DEFAULT_TURN_LIMITS: TurnLimits = { startsPerMinute: 30, concurrent: 3 };

const WINDOW_MS = 60_000;
/** How long a running turn's claim counts without a heartbeat: as `createDatabaseRunningTurns` decides. */
const CLAIM_STALE_AFTER_MS = 15_000;
/** What a concurrency refusal suggests waiting: about one heartbeat of the running turns. */
const CONCURRENT_RETRY_AFTER_SECONDS = 5;

export interface TurnRateLimitOptions {
  now?: () => number;
  /** As configured for the running turns' store (default 15 s). */
  claimStaleAfterMs?: number;
}

function rateLimited(message: string, retryAfterSeconds: number, limit: string): ApiError {
  return new ApiError('rate_limited', message, { details: { limit, retryAfterSeconds } });
}

/**
 * `running` with the user's limits checked before each claim. Everything else
 * of the store passes through unchanged.
 */
export function withTurnRateLimit(
  running: RunningTurns,
  database: AppDatabase,
  limits: TurnLimits,
  options: TurnRateLimitOptions = {},
): RunningTurns {
  if (limits.startsPerMinute <= 0 && limits.concurrent <= 0) return running;
  const { db } = database;
  const now = options.now ?? Date.now;
  const staleAfterMs = options.claimStaleAfterMs ?? CLAIM_STALE_AFTER_MS;

  async function checkStarts(userId: string, at: number): Promise<void> {
    if (limits.startsPerMinute <= 0) return;
    const since = writeTimestamp(at - WINDOW_MS);
    await db
      .deleteFrom('turn_starts')
      .where('user_id', '=', userId)
      .where('started_at', '<=', since)
      .execute();
    const row = await db
      .selectFrom('turn_starts')
      .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('started_at').as('oldest')])
      .where('user_id', '=', userId)
      .where('started_at', '>', since)
      .executeTakeFirst();
    if (Number(row?.count ?? 0) < limits.startsPerMinute) return;
    const oldest = row?.oldest ? Date.parse(readTimestamp(row.oldest)) : at;
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest + WINDOW_MS - at) / 1000));
    throw rateLimited(
      `You started ${limits.startsPerMinute} turns in the last minute, the most this server allows. Try again in ${retryAfterSeconds} s.`,
      retryAfterSeconds,
      'turns_per_minute',
    );
  }

  async function checkConcurrent(userId: string, chatId: string, at: number): Promise<void> {
    if (limits.concurrent <= 0) return;
    const row = await db
      .selectFrom('chat_turns')
      .innerJoin('chats', 'chats.id', 'chat_turns.chat_id')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('chats.user_id', '=', userId)
      // A turn already running in this chat is the claim's to refuse (409), not the limit's.
      .where('chat_turns.chat_id', '!=', chatId)
      .where('chat_turns.heartbeat_at', '>=', writeTimestamp(at - staleAfterMs))
      .executeTakeFirst();
    if (Number(row?.count ?? 0) < limits.concurrent) return;
    throw rateLimited(
      `You have ${limits.concurrent} turns running, the most this server allows at once. Wait for one to finish (or cancel one), then try again.`,
      CONCURRENT_RETRY_AFTER_SECONDS,
      'concurrent_turns',
    );
  }

  return {
    ...running,
    async begin(chatId, ...rest) {
      const owner = await db
        .selectFrom('chats')
        .select('user_id')
        .where('id', '=', chatId)
        .executeTakeFirst();
      // No such chat: the store decides (the turn service has checked the chat already).
      if (!owner) return running.begin(chatId, ...rest);
      const userId = owner.user_id;
      return database.withLock(`turn-limits:${userId}`, async () => {
        const at = now();
        await checkStarts(userId, at);
        await checkConcurrent(userId, chatId, at);
        const claim = await running.begin(chatId, ...rest);
        if (claim && limits.startsPerMinute > 0) {
          try {
            await db
              .insertInto('turn_starts')
              .values({ id: createRowId('start'), user_id: userId, started_at: writeTimestamp(at) })
              .execute();
          } catch (error) {
            await claim.end();
            throw error;
          }
        }
        return claim;
      });
    },
  };
}
