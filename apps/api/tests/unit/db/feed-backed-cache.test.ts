import { describe, expect, test } from 'bun:test';
import type { ChangeFeed, ChangeSubscriber } from '../../../src/db/change-feed';
import {
  createFeedBackedCache,
  type FeedBackedCacheOptions,
} from '../../../src/db/feed-backed-cache';
import { waitUntil } from '../../support/wait-until';

/** A feed whose liveness and signals the test drives by hand. */
function createManualFeed() {
  const subscribers: ChangeSubscriber[] = [];
  let live = true;
  const feed: ChangeFeed = {
    subscribe: (_channel, subscriber) => {
      subscribers.push(subscriber);
      return () => {};
    },
    notify: async () => {},
    isLive: () => live,
    close: async () => {},
  };
  return {
    feed,
    setLive: (value: boolean) => {
      live = value;
    },
    change: (key: string) => {
      for (const subscriber of subscribers) subscriber.onChange(key);
    },
    reset: () => {
      for (const subscriber of subscribers) subscriber.onReset();
    },
  };
}

function cacheWith(feed: ChangeFeed | undefined, overrides: Partial<FeedBackedCacheOptions> = {}) {
  return createFeedBackedCache<string>({
    feed,
    channel: 'test_channel',
    invalidates: 'key',
    maxEntries: 100,
    ttlMs: 60_000,
    ...overrides,
  });
}

describe('feed-backed cache', () => {
  test('a value read while the feed is live is fresh until a signal for its key drops it', () => {
    const manual = createManualFeed();
    const cache = cacheWith(manual.feed);
    cache.startRead('alice').store('alice-v1');
    cache.startRead('bob').store('bob-v1');
    expect(cache.lookup('alice')).toEqual({ value: 'alice-v1', fresh: true });
    manual.change('alice');
    expect(cache.lookup('alice')).toBeUndefined();
    expect(cache.lookup('bob')).toEqual({ value: 'bob-v1', fresh: true });
  });

  test('fresh gives the value only while the feed vouches for it', () => {
    const manual = createManualFeed();
    const cache = cacheWith(manual.feed, { keepUnvouched: true });
    expect(cache.fresh('alice')).toBeUndefined();
    cache.startRead('alice').store('alice-v1');
    expect(cache.fresh('alice')).toBe('alice-v1');
    manual.setLive(false);
    expect(cache.fresh('alice')).toBeUndefined();
    // Kept as a hint, but not fresh: stored while the feed was down.
    cache.startRead('bob').store('bob-v1');
    manual.setLive(true);
    expect(cache.lookup('bob')).toEqual({ value: 'bob-v1', fresh: false });
    expect(cache.fresh('bob')).toBeUndefined();
    manual.change('alice');
    expect(cache.fresh('alice')).toBeUndefined();
  });

  test("with invalidates 'all' any signal drops every entry", () => {
    const manual = createManualFeed();
    const cache = cacheWith(manual.feed, { invalidates: 'all' });
    cache.startRead('alice').store('alice-v1');
    cache.startRead('bob').store('bob-v1');
    manual.change('revoked');
    expect(cache.lookup('alice')).toBeUndefined();
    expect(cache.lookup('bob')).toBeUndefined();
  });

  test('a change that lands during a read leaves nothing fresh behind', () => {
    const manual = createManualFeed();
    const cache = cacheWith(manual.feed);
    const read = cache.startRead('alice');
    manual.change('alice');
    read.store('read-before-the-change');
    expect(cache.lookup('alice')).toBeUndefined();

    const hinting = cacheWith(manual.feed, { keepUnvouched: true });
    const hintRead = hinting.startRead('alice');
    manual.change('alice');
    hintRead.store('read-before-the-change');
    expect(hinting.lookup('alice')).toEqual({ value: 'read-before-the-change', fresh: false });
  });

  test('a change to another key does not spoil a read in flight', () => {
    const manual = createManualFeed();
    const cache = cacheWith(manual.feed);
    const read = cache.startRead('alice');
    manual.change('bob');
    read.store('alice-v1');
    expect(cache.lookup('alice')).toEqual({ value: 'alice-v1', fresh: true });
  });

  test('a reset drops everything, including what a read in flight brings back', () => {
    const manual = createManualFeed();
    const cache = cacheWith(manual.feed);
    cache.startRead('bob').store('bob-v1');
    const read = cache.startRead('alice');
    manual.reset();
    read.store('alice-v1');
    expect(cache.lookup('alice')).toBeUndefined();
    expect(cache.lookup('bob')).toBeUndefined();
  });

  test('while the feed is not live nothing is fresh, not even what was stored before', () => {
    const manual = createManualFeed();
    const cache = cacheWith(manual.feed, { keepUnvouched: true });
    cache.startRead('alice').store('alice-v1');
    manual.setLive(false);
    expect(cache.lookup('alice')).toEqual({ value: 'alice-v1', fresh: false });
    cache.startRead('bob').store('bob-while-down');
    manual.setLive(true);
    expect(cache.lookup('bob')).toEqual({ value: 'bob-while-down', fresh: false });
  });

  test('a read during which the feed went down is not vouched for', () => {
    const manual = createManualFeed();
    const cache = cacheWith(manual.feed);
    const read = cache.startRead('alice');
    manual.setLive(false);
    read.store('alice-v1');
    manual.setLive(true);
    expect(cache.lookup('alice')).toBeUndefined();
  });

  test('without a feed every lookup must read through', () => {
    const cache = cacheWith(undefined, { keepUnvouched: true });
    cache.startRead('alice').store('alice-v1');
    expect(cache.lookup('alice')).toEqual({ value: 'alice-v1', fresh: false });
  });

  test('forget and forgetAll drop entries on this instance and spoil reads in flight', () => {
    const manual = createManualFeed();
    const cache = cacheWith(manual.feed);
    const read = cache.startRead('alice');
    cache.forget('alice');
    read.store('alice-v1');
    expect(cache.lookup('alice')).toBeUndefined();

    cache.startRead('bob').store('bob-v1');
    const later = cache.startRead('carol');
    cache.forgetAll();
    later.store('carol-v1');
    expect(cache.lookup('bob')).toBeUndefined();
    expect(cache.lookup('carol')).toBeUndefined();
  });

  test('an entry expires after its own ttl when one is given', async () => {
    const manual = createManualFeed();
    const cache = cacheWith(manual.feed);
    cache.startRead('alice').store('short-lived', { ttlMs: 1 });
    cache.startRead('bob').store('long-lived');
    expect(await waitUntil(() => cache.lookup('alice') === undefined)).toBe(true);
    expect(cache.lookup('bob')?.fresh).toBe(true);
  });

  describe('readShared', () => {
    /** A read the test finishes by hand, counting how many were started. */
    function manualReads() {
      const finishers: ((value: string) => void)[] = [];
      return {
        started: () => finishers.length,
        read: (started: { store(value: string): void }) =>
          new Promise<string>((resolve) => {
            finishers.push((value) => {
              started.store(value);
              resolve(value);
            });
          }),
        finish: (index: number, value: string) => finishers[index]?.(value),
      };
    }

    test('misses of one key that overlap share a single read, and its result', async () => {
      const manual = createManualFeed();
      const cache = cacheWith(manual.feed);
      const reads = manualReads();
      const results = Array.from({ length: 20 }, () => cache.readShared('alice', reads.read));
      const other = cache.readShared('bob', reads.read);
      expect(reads.started()).toBe(2);
      reads.finish(0, 'alice-v1');
      reads.finish(1, 'bob-v1');
      expect(await Promise.all(results)).toEqual(Array.from({ length: 20 }, () => 'alice-v1'));
      expect(await other).toBe('bob-v1');
      expect(cache.lookup('alice')).toEqual({ value: 'alice-v1', fresh: true });
      // Once it has ended, the next miss reads again.
      void cache.readShared('alice', reads.read);
      expect(reads.started()).toBe(3);
    });

    test('a change under the key, or a reset, while a read runs makes later callers read anew', async () => {
      const manual = createManualFeed();
      const cache = cacheWith(manual.feed);
      const reads = manualReads();
      const before = cache.readShared('alice', reads.read);
      manual.change('alice');
      const afterChange = cache.readShared('alice', reads.read);
      manual.reset();
      const afterReset = cache.readShared('alice', reads.read);
      expect(reads.started()).toBe(3);
      reads.finish(0, 'stale');
      reads.finish(1, 'also stale');
      reads.finish(2, 'current');
      expect([await before, await afterChange, await afterReset]).toEqual([
        'stale',
        'also stale',
        'current',
      ]);
      expect(cache.lookup('alice')).toEqual({ value: 'current', fresh: true });
    });

    test('without a live feed every caller reads for itself', async () => {
      const manual = createManualFeed();
      manual.setLive(false);
      const cache = cacheWith(manual.feed);
      const reads = manualReads();
      const results = [
        cache.readShared('alice', reads.read),
        cache.readShared('alice', reads.read),
      ];
      expect(reads.started()).toBe(2);
      reads.finish(0, 'one');
      reads.finish(1, 'two');
      expect(await Promise.all(results)).toEqual(['one', 'two']);
    });

    test('a failed read fails every caller that shared it, and the next miss reads again', async () => {
      const manual = createManualFeed();
      const cache = cacheWith(manual.feed);
      let started = 0;
      const failing = async () => {
        started += 1;
        await Bun.sleep(1);
        throw new Error('database unreachable');
      };
      const results = [cache.readShared('alice', failing), cache.readShared('alice', failing)];
      for (const result of results) await expect(result).rejects.toThrow('database unreachable');
      expect(started).toBe(1);
      let again = 0;
      const value = await cache.readShared('alice', async () => {
        again += 1;
        return 'alice-v1';
      });
      expect([value, again]).toEqual(['alice-v1', 1]);
    });
  });
});
