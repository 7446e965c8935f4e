import { expect, test } from 'bun:test';
import pg from 'pg';
import {
  CHANGE_FEED_APPLICATION_NAME,
  type ChangeSubscriber,
  createPostgresChangeFeed,
} from '../../../src/db/change-feed';
import { openDatabase } from '../../../src/db/database';
import { getTestPostgres } from '../../support/postgres-server';
import { createTestDatabaseConfig } from '../../support/test-databases';
import { waitUntil } from '../../support/wait-until';

function recorder() {
  const changes: string[] = [];
  let resets = 0;
  const subscriber: ChangeSubscriber = {
    onChange: (key) => changes.push(key),
    onReset: () => {
      resets += 1;
    },
  };
  return { subscriber, changes, resets: () => resets };
}

test('SQLite: every handle on one file in this process hears the others', async () => {
  const { config, cleanup } = await createTestDatabaseConfig('sqlite');
  const first = openDatabase(config);
  const second = openDatabase(config);
  try {
    const heard = recorder();
    first.changes.subscribe('user_tool_settings', heard.subscriber);
    expect(first.changes.isLive()).toBe(true);
    await second.changes.notify('user_tool_settings', 'user-1');
    expect(heard.changes).toEqual(['user-1']);
  } finally {
    await first.close();
    await second.close();
    cleanup();
  }
});

test('PostgreSQL: signals cross instances; a lost connection resets subscribers and comes back', async () => {
  const server = await getTestPostgres();
  const url = await server.createDatabase();
  const sender = openDatabase({ kind: 'postgres', url });
  const feed = createPostgresChangeFeed({
    url,
    notify: (channel, key) => sender.changes.notify(channel, key),
    reconnectDelayMs: 50,
  });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const heard = recorder();
    feed.subscribe('user_tool_settings', heard.subscriber);
    expect(await waitUntil(() => feed.isLive(), 10_000)).toBe(true);
    const resetsWhenLive = heard.resets();

    await sender.changes.notify('user_tool_settings', 'user-a');
    expect(await waitUntil(() => heard.changes.includes('user-a'), 10_000)).toBe(true);

    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [CHANGE_FEED_APPLICATION_NAME],
    );
    // Subscribers are told to forget what they cached, and the feed comes back.
    expect(await waitUntil(() => heard.resets() > resetsWhenLive, 10_000)).toBe(true);
    expect(await waitUntil(() => feed.isLive(), 10_000)).toBe(true);

    await sender.changes.notify('user_tool_settings', 'user-b');
    expect(await waitUntil(() => heard.changes.includes('user-b'), 10_000)).toBe(true);
  } finally {
    await admin.end();
    await feed.close();
    await sender.close();
  }
}, 30_000);
