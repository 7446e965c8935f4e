/**
 * A cache of what this instance read from the database, kept honest by the
 * change feed (`change-feed.ts`): an entry is fresh — usable without a read —
 * only if the feed was live while it was read, no change under its key arrived
 * meanwhile, and the feed is still live. A change signal from any instance, a
 * local `forget` or a feed reset drops entries, and a read in flight across one
 * of them stores a value that is never fresh. Without a live feed every lookup
 * must read through.
 */
import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from './change-feed';

export interface FeedBackedCacheOptions {
  /** Signals from every instance; without one no entry is ever fresh. */
  feed?: ChangeFeed;
  /** The feed channel whose signals drop entries. */
  channel: string;
  /**
   * What a signal drops: the entry under the signalled key (`key`), or every
   * entry (`all`, for channels whose keys are not cache keys).
   */
  invalidates: 'key' | 'all';
  maxEntries: number;
  /** How long an entry lives, which bounds how long a change nobody signalled can go unseen. */
  ttlMs: number;
  /**
   * Also keep values the feed cannot vouch for, as hints: `lookup` returns
   * them with `fresh: false`, e.g. to reuse what was derived from rows that
   * turn out unchanged. Off by default: such values are dropped.
   */
  keepUnvouched?: boolean;
}

export interface CachedValue<V> {
  value: V;
  /** Usable as is; otherwise read through (the value is at most a hint). */
  fresh: boolean;
}

/** One read from the source, started before it and finished with what it produced. */
export interface FeedBackedRead<V> {
  store(value: V, options?: { ttlMs?: number }): void;
}

export interface FeedBackedCache<V> {
  lookup(key: string): CachedValue<V> | undefined;
  /** The value while the feed vouches for it (usable without a read), else undefined. */
  fresh(key: string): V | undefined;
  /** Call before reading the source, so a change that lands during the read is noticed. */
  startRead(key: string): FeedBackedRead<V>;
  /**
   * Runs `read` (given what `startRead` gives), or joins the read of the same
   * key already running: many requests that miss together (an entry that
   * expired under load) cost one read. A caller joins only while the feed is
   * live and nothing changed under the key since that read started; otherwise
   * it starts its own.
   */
  readShared<R>(key: string, read: (started: FeedBackedRead<V>) => Promise<R>): Promise<R>;
  /** Drops one entry on this instance (after writing it, before signalling the others). */
  forget(key: string): void;
  /** Drops every entry on this instance. */
  forgetAll(): void;
}

interface Entry<V> {
  value: V;
  vouched: boolean;
}

export function createFeedBackedCache<V>(options: FeedBackedCacheOptions): FeedBackedCache<V> {
  const entries = new LRUCache<string, Entry<V>>({ max: options.maxEntries, ttl: options.ttlMs });
  // Bumped on every change, so a read that started before one is not vouched for after it.
  const generations = new Map<string, number>();
  let epoch = 0;
  const isLive = () => options.feed?.isLive() ?? false;
  /** Reads running for `readShared`, with the key's generation and the epoch they started in. */
  const running = new Map<
    string,
    { result: Promise<unknown>; generation: number; epoch: number }
  >();

  const forget = (key: string) => {
    entries.delete(key);
    generations.set(key, (generations.get(key) ?? 0) + 1);
  };
  const forgetAll = () => {
    entries.clear();
    generations.clear();
    epoch += 1;
  };
  options.feed?.subscribe(options.channel, {
    onChange: (key) => (options.invalidates === 'all' ? forgetAll() : forget(key)),
    onReset: forgetAll,
  });

  const startRead = (key: string): FeedBackedRead<V> => {
    const liveAtStart = isLive();
    const generation = generations.get(key) ?? 0;
    const epochAtStart = epoch;
    return {
      store(value, storeOptions) {
        const vouched =
          liveAtStart &&
          epoch === epochAtStart &&
          (generations.get(key) ?? 0) === generation &&
          isLive();
        if (!vouched && !options.keepUnvouched) return;
        entries.set(
          key,
          { value, vouched },
          storeOptions?.ttlMs === undefined ? undefined : { ttl: storeOptions.ttlMs },
        );
      },
    };
  };

  return {
    lookup(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      return { value: entry.value, fresh: entry.vouched && isLive() };
    },
    fresh(key) {
      const entry = entries.get(key);
      return entry?.vouched && isLive() ? entry.value : undefined;
    },
    startRead,
    readShared<R>(key: string, read: (started: FeedBackedRead<V>) => Promise<R>): Promise<R> {
      const generation = generations.get(key) ?? 0;
      const current = running.get(key);
      if (current?.generation === generation && current.epoch === epoch && isLive())
        return current.result as Promise<R>;
      const result = read(startRead(key));
      if (!isLive()) return result;
      const entry = { result, generation, epoch };
      running.set(key, entry);
      const done = () => {
        if (running.get(key) === entry) running.delete(key);
      };
      result.then(done, done);
      return result;
    },
    forget,
    forgetAll,
  };
}
