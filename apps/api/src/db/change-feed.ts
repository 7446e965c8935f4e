/**
 * "This changed" signals between API instances, so each can keep a cache of
 * what it read and drop an entry as soon as any instance writes it. SQLite is
 * served by one process, so there the feed is in-process. On PostgreSQL it is
 * LISTEN/NOTIFY over one dedicated connection; while that connection is down
 * the feed reports itself not live (caches must read through) and, once it is
 * back, tells subscribers to forget everything, since signals may have been
 * missed in between.
 */
import type pg from 'pg';
import type { Logger } from '../logger';
import { loadPg } from './load-pg';

export interface ChangeSubscriber {
  /** Something under `key` changed (on this or another instance). */
  onChange(key: string): void;
  /** Signals may have been missed: forget everything cached. */
  onReset(): void;
}

export interface ChangeFeed {
  subscribe(channel: string, subscriber: ChangeSubscriber): () => void;
  /** Signals `key` on `channel` to every instance, this one included. */
  notify(channel: string, key: string): Promise<void>;
  /** True while signals from every instance are known to arrive. */
  isLive(): boolean;
  close(): Promise<void>;
}

/** How the feed's connection names itself to PostgreSQL (visible in pg_stat_activity). */
export const CHANGE_FEED_APPLICATION_NAME = 'mango-change-feed';

const CHANNEL_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

function checkChannel(channel: string): void {
  // Channels are identifiers in LISTEN statements; only fixed names are used.
  if (!CHANNEL_PATTERN.test(channel)) throw new Error(`Invalid change channel "${channel}".`);
}

class Subscribers {
  readonly byChannel = new Map<string, Set<ChangeSubscriber>>();

  add(channel: string, subscriber: ChangeSubscriber): () => void {
    let set = this.byChannel.get(channel);
    if (!set) {
      set = new Set();
      this.byChannel.set(channel, set);
    }
    set.add(subscriber);
    return () => set.delete(subscriber);
  }

  change(channel: string, key: string): void {
    for (const subscriber of this.byChannel.get(channel) ?? []) subscriber.onChange(key);
  }

  reset(): void {
    for (const set of this.byChannel.values()) for (const subscriber of set) subscriber.onReset();
  }
}

export function createLocalChangeFeed(): ChangeFeed {
  const subscribers = new Subscribers();
  return {
    subscribe: (channel, subscriber) => {
      checkChannel(channel);
      return subscribers.add(channel, subscriber);
    },
    notify: async (channel, key) => {
      checkChannel(channel);
      subscribers.change(channel, key);
    },
    isLive: () => true,
    close: async () => {},
  };
}

export interface PostgresChangeFeedOptions {
  url: string;
  /** Runs a NOTIFY through the main pool. */
  notify: (channel: string, key: string) => Promise<void>;
  logger?: Logger;
  reconnectDelayMs?: number;
}

export function createPostgresChangeFeed(options: PostgresChangeFeedOptions): ChangeFeed {
  const subscribers = new Subscribers();
  const reconnectDelayMs = options.reconnectDelayMs ?? 1000;
  let client: pg.Client | undefined;
  let live = false;
  let closed = false;
  let connecting: Promise<void> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const dropConnection = (reason: string) => {
    if (!client) return;
    const lost = client;
    client = undefined;
    live = false;
    lost.removeAllListeners();
    lost.on('error', () => {});
    lost.end().catch(() => {});
    subscribers.reset();
    if (!closed) {
      options.logger?.warn('change feed connection lost; caches read through until it is back', {
        reason,
      });
      retry = setTimeout(() => void connect(), reconnectDelayMs);
    }
  };

  const connect = (): Promise<void> => {
    if (closed || client) return Promise.resolve();
    connecting ??= (async () => {
      const candidate = new (loadPg().Client)({
        connectionString: options.url,
        application_name: CHANGE_FEED_APPLICATION_NAME,
      });
      candidate.on('error', (error) => dropConnection(error.message));
      candidate.on('end', () => dropConnection('connection ended'));
      candidate.on('notification', (message) => {
        if (message.payload !== undefined) subscribers.change(message.channel, message.payload);
      });
      try {
        await candidate.connect();
        for (const channel of subscribers.byChannel.keys()) {
          await candidate.query(`LISTEN ${channel}`);
        }
        if (closed) {
          await candidate.end();
          return;
        }
        client = candidate;
        // Anything cached before this point may have missed a signal.
        subscribers.reset();
        live = true;
      } catch (error) {
        candidate.removeAllListeners();
        candidate.on('error', () => {});
        candidate.end().catch(() => {});
        if (!closed) {
          options.logger?.warn('change feed could not connect; retrying', {
            error: (error as Error).message,
          });
          retry = setTimeout(() => void connect(), reconnectDelayMs);
        }
      } finally {
        connecting = undefined;
      }
    })();
    return connecting;
  };

  return {
    subscribe(channel, subscriber) {
      checkChannel(channel);
      const isNewChannel = !subscribers.byChannel.has(channel);
      const unsubscribe = subscribers.add(channel, subscriber);
      if (isNewChannel && client) {
        // Not live for this channel until LISTEN has run.
        live = false;
        client.query(`LISTEN ${channel}`).then(
          () => {
            if (client) live = true;
          },
          (error: Error) => dropConnection(error.message),
        );
      } else if (!client) {
        void connect();
      }
      return unsubscribe;
    },
    notify: (channel, key) => {
      checkChannel(channel);
      return options.notify(channel, key);
    },
    isLive: () => live,
    async close() {
      closed = true;
      live = false;
      if (retry) clearTimeout(retry);
      await connecting;
      const current = client;
      client = undefined;
      if (current) {
        current.removeAllListeners();
        current.on('error', () => {});
        await current.end().catch(() => {});
      }
    },
  };
}
