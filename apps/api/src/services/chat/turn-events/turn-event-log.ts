/**
 * Every turn's events, for whoever follows them (docs/chat-turns.md#re-attaching).
 * The instance running a turn records each event in memory (the stream of
 * that instance's followers, with no database in between) and writes them to
 * the `TurnEventStore` in batches — a short delay after the first unsaved
 * event, at once for `done`; one statement carries the batches of every turn
 * with unsaved events, so many turns streaming at once cost one insert per
 * flush — then signals the change feed, so a follower on
 * another instance reads the new batch. Such a follower also looks again every
 * `pollMs` (a missed signal costs that long at most) and, when the turn's
 * instance is gone without ending it, ends the stream itself with an `error`
 * and a `done` rather than waiting for ever.
 */
import type { DoneEvent, TurnStreamEvent } from '@mango/shared';
import type { ChangeFeed } from '../../../db/change-feed';
import type { Logger } from '../../../logger';
import type { TurnEventRecord, TurnEventStore, TurnRecord } from './turn-event-store';

/** The change-feed channel signalling that a turn has new events stored (the key is its id). */
export const TURN_EVENTS_CHANNEL = 'turn_events';

/** How long an ended turn's events stay in memory by default, for followers arriving late. */
export const ENDED_TURN_KEPT_MS = 60_000;

export interface TurnRecorder {
  readonly turnId: string;
  /** Records the turn's next event (anything but `done`); returns its sequence number. */
  append(event: TurnStreamEvent): number;
  /**
   * Ends the turn with its `done`: stores it and what is left, then calls
   * `release` (which frees the chat), and only then shows `done` to
   * followers — so a follower anywhere that sees `done` may start the next
   * turn at once, and one that finds the chat free always finds `done` stored.
   */
  end(done: DoneEvent, release: () => Promise<void>): Promise<void>;
}

export interface TurnEventLog {
  /** Starts recording a turn that runs on this instance. */
  open(turn: TurnRecord): TurnRecorder;
  /**
   * The turn's events after `afterSeq` and then its live ones, until its
   * `done` (or until `signal` aborts: the follower went away).
   */
  follow(turn: TurnRecord, afterSeq: number, signal: AbortSignal): AsyncGenerator<TurnEventRecord>;
  /** Whether this instance is recording the turn now. */
  isLocal(turnId: string): boolean;
}

export interface TurnEventLogOptions {
  store: TurnEventStore;
  changes: ChangeFeed;
  /** Whether a turn still runs in the chat on some instance (its claim is fresh). */
  isRunning(chatId: string): Promise<boolean>;
  /** How long an unsaved event may wait for the next batch (default 50 ms). */
  flushDelayMs?: number;
  /** A batch is written at once when it has this many events (default 200). */
  maxBatch?: number;
  /** How often a follower on another instance looks for new events without a signal (default 1 s). */
  pollMs?: number;
  /** How long an ended turn's events stay in this instance's memory (default `ENDED_TURN_KEPT_MS`). */
  keepEndedMs?: number;
  logger?: Logger;
}

interface LiveTurn {
  readonly records: TurnEventRecord[];
  ended: boolean;
  waiters: (() => void)[];
}

function wakeAll(live: LiveTurn): void {
  const waiters = live.waiters;
  live.waiters = [];
  for (const wake of waiters) wake();
}

/** Resolves when `register` calls back, the signal aborts or `ms` pass (whichever first). */
function waitFor(
  register: (wake: () => void) => void,
  signal: AbortSignal,
  ms?: number,
): Promise<void> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', done, { once: true });
    if (ms !== undefined) timer = setTimeout(done, ms);
    register(done);
  });
}

export function createTurnEventLog(options: TurnEventLogOptions): TurnEventLog {
  const { store, changes } = options;
  const flushDelayMs = options.flushDelayMs ?? 50;
  const maxBatch = options.maxBatch ?? 200;
  const pollMs = options.pollMs ?? 1000;
  const keepEndedMs = options.keepEndedMs ?? ENDED_TURN_KEPT_MS;
  const local = new Map<string, LiveTurn>();

  /** The events of a turn whose instance stopped without ending it. */
  const interruptedEnding = async (turn: TurnRecord, lastSeq: number) => {
    const seen = await store.read(turn.id, 0);
    const iterations = seen.filter(
      ({ event }) => event.type === 'turn_completed' || event.type === 'error',
    ).length;
    const records: TurnEventRecord[] = [
      {
        seq: lastSeq + 1,
        event: {
          type: 'error',
          code: 'aborted',
          message:
            'The turn was interrupted: the server running it stopped before the turn ended. What it produced is stored; its unfinished tool calls show as aborted. Send the message again to continue.',
          retryable: true,
        },
      },
      { seq: lastSeq + 2, event: { type: 'done', status: 'error', iterations } },
    ];
    return records;
  };

  async function* followStored(
    turn: TurnRecord,
    afterSeq: number,
    signal: AbortSignal,
  ): AsyncGenerator<TurnEventRecord> {
    let last = afterSeq;
    // Set by a signal that arrives while the follower reads: it looks again at once.
    let dirty = false;
    let signalled: (() => void) | undefined;
    const onSignal = () => {
      dirty = true;
      signalled?.();
    };
    const unsubscribe = changes.subscribe(TURN_EVENTS_CHANNEL, {
      onChange: (key) => {
        if (key === turn.id) onSignal();
      },
      onReset: onSignal,
    });
    try {
      while (!signal.aborted) {
        dirty = false;
        const records = await store.read(turn.id, last);
        for (const record of records) {
          last = record.seq;
          yield record;
          if (record.event.type === 'done') return;
        }
        if (records.length === 0) {
          const current = await store.get(turn.id);
          const ended = current === undefined || current.status !== 'running';
          const gone = !ended && !(await options.isRunning(turn.chatId));
          if (ended || gone) {
            // One more look: the last batch may have landed since the read above.
            const tail = await store.read(turn.id, last);
            for (const record of tail) {
              last = record.seq;
              yield record;
              if (record.event.type === 'done') return;
            }
            for (const record of await interruptedEnding(turn, last)) yield record;
            return;
          }
        }
        if (dirty) continue;
        await waitFor(
          (wake) => {
            signalled = wake;
          },
          signal,
          pollMs,
        );
        signalled = undefined;
      }
    } finally {
      unsubscribe();
    }
  }

  async function* followLocal(
    live: LiveTurn,
    afterSeq: number,
    signal: AbortSignal,
  ): AsyncGenerator<TurnEventRecord> {
    // Sequence numbers start at 1 and have no gaps: event `seq` is at index seq - 1.
    let index = Math.max(0, afterSeq);
    // One abort listener for the whole follow, not one per wait: a follower waits once per event.
    let wake: (() => void) | undefined;
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      while (!signal.aborted) {
        while (index < live.records.length) {
          const record = live.records[index] as TurnEventRecord;
          index += 1;
          yield record;
          if (record.event.type === 'done') return;
        }
        if (live.ended || signal.aborted) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
          live.waiters.push(resolve);
        });
        wake = undefined;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** The events of each turn this instance records that are not stored yet. */
  interface Unsaved {
    readonly turnId: string;
    records: TurnEventRecord[];
    /** Set by `end`: its batches are not signalled (end signals once `done` may be seen). */
    ending: boolean;
    /** Its last batch failed: it is written alone until one succeeds, so the others' are not retried with it. */
    failing: boolean;
  }
  const unsaved = new Map<string, Unsaved>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();

  /** Stores one batch per turn in `batches`; a failed one goes back in front of its turn's queue. */
  const storeBatches = async (
    batches: { turn: Unsaved; records: TurnEventRecord[] }[],
  ): Promise<boolean[]> => {
    try {
      await store.appendBatches(
        batches.map(({ turn, records }) => ({ turnId: turn.turnId, events: records })),
      );
      for (const { turn } of batches) turn.failing = false;
      return batches.map(() => true);
    } catch (error) {
      if (batches.length > 1) {
        // One turn's batch (its chat deleted meanwhile, say) must not hold back the others'.
        const stored: boolean[] = [];
        for (const batch of batches) stored.push(...(await storeBatches([batch])));
        return stored;
      }
      const [{ turn, records }] = batches as [{ turn: Unsaved; records: TurnEventRecord[] }];
      // Kept for the next batch: followers elsewhere see these a little later.
      turn.records = [...records, ...turn.records];
      turn.failing = true;
      unsaved.set(turn.turnId, turn);
      options.logger?.warn('could not store turn events; retrying with the next batch', {
        turnId: turn.turnId,
        events: records.length,
        error,
      });
      return [false];
    }
  };

  /**
   * Writes what every turn has unsaved, one row per turn in one statement:
   * many turns streaming at once cost one insert per flush, not one each.
   * Flushes run one after another, so each turn's batches are stored in order.
   */
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    writing = writing.then(async () => {
      const batches = [...unsaved.values()]
        .filter((turn) => turn.records.length > 0)
        .map((turn) => {
          const records = turn.records;
          turn.records = [];
          return { turn, records };
        });
      unsaved.clear();
      if (batches.length === 0) return;
      const shared = batches.filter(({ turn }) => !turn.failing);
      const alone = batches.filter(({ turn }) => turn.failing);
      const stored = [
        ...(shared.length > 0 ? await storeBatches(shared) : []),
        ...(await Promise.all(alone.map((batch) => storeBatches([batch])))).flat(),
      ];
      // The signals go out together: on PostgreSQL each is a round trip of its own.
      await Promise.all(
        [...shared, ...alone]
          .filter(({ turn }, index) => stored[index] && !turn.ending)
          .map(({ turn }) =>
            changes.notify(TURN_EVENTS_CHANNEL, turn.turnId).catch((error: unknown) => {
              options.logger?.warn('could not signal new turn events', {
                turnId: turn.turnId,
                error,
              });
            }),
          ),
      );
    });
    return writing;
  };

  return {
    open(turn) {
      const live: LiveTurn = { records: [], ended: false, waiters: [] };
      local.set(turn.id, live);
      const queue: Unsaved = { turnId: turn.id, records: [], ending: false, failing: false };
      const enqueue = (record: TurnEventRecord) => {
        queue.records.push(record);
        unsaved.set(turn.id, queue);
      };

      return {
        turnId: turn.id,
        append(event) {
          const record = { seq: live.records.length + 1, event };
          live.records.push(record);
          enqueue(record);
          if (live.waiters.length > 0) wakeAll(live);
          if (queue.records.length >= maxBatch) void flush();
          else timer ??= setTimeout(flush, flushDelayMs);
          return record.seq;
        },
        async end(done, release) {
          const record = { seq: live.records.length + 1, event: done };
          queue.ending = true;
          enqueue(record);
          await flush();
          if (queue.records.length > 0) await flush();
          // What still could not be stored is given up (and was logged): the turn is over.
          if (unsaved.get(turn.id) === queue) unsaved.delete(turn.id);
          try {
            await store.finish(turn.id, done.status);
          } catch (error) {
            options.logger?.warn('could not store the end of a turn', { turnId: turn.id, error });
          }
          try {
            await release();
          } finally {
            live.records.push(record);
            live.ended = true;
            wakeAll(live);
            await changes.notify(TURN_EVENTS_CHANNEL, turn.id).catch(() => {});
          }
          setTimeout(() => {
            if (local.get(turn.id) === live) local.delete(turn.id);
          }, keepEndedMs).unref?.();
        },
      };
    },

    follow(turn, afterSeq, signal) {
      const live = local.get(turn.id);
      return live ? followLocal(live, afterSeq, signal) : followStored(turn, afterSeq, signal);
    },

    isLocal: (turnId) => local.has(turnId),
  };
}
