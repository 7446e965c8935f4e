/**
 * A chat API server to run as a child process (test support), for tests that
 * kill a server mid-turn: the production app (`createApp`, database running
 * turns, the OpenAI adapter) on the database and fake provider named by the
 * environment, with the scenario tools (`echo` answers at once, `slow` runs
 * until cancelled). Prints `{"url": …}` once it listens, like the real server.
 *
 *   MANGO_TEST_DATABASE   a DatabaseConfig as JSON
 *   MANGO_TEST_OPENAI_URL the fake provider's OpenAI base URL
 *   MANGO_INSTANCE_ID     the instance's name (optional): its leftover claims are released at start
 */
import { type DatabaseConfig, openDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { createDatabaseRunningTurns } from '../../src/services/chat/running-turns';
import { createProviderRegistry } from '../../src/services/providers/provider-registry';
import { createScenarioRegistry } from './scenario-tools';
import { startTestApp } from './test-app';

const databaseConfig = JSON.parse(process.env.MANGO_TEST_DATABASE ?? 'null') as DatabaseConfig;
const openaiUrl = process.env.MANGO_TEST_OPENAI_URL;
if (!databaseConfig || !openaiUrl) {
  console.error('Set MANGO_TEST_DATABASE and MANGO_TEST_OPENAI_URL.');
  process.exit(2);
}
const database = openDatabase(databaseConfig);
await migrateToLatest(database);
const instanceId = process.env.MANGO_INSTANCE_ID;
const runningTurns = createDatabaseRunningTurns(database, instanceId ? { instanceId } : {});
await runningTurns.releaseLeftovers();
const app = startTestApp(database, {
  providers: createProviderRegistry({
    openai: { baseURL: openaiUrl, apiKey: 'test-key', maxRetries: 0 },
  }),
  toolRegistry: createScenarioRegistry().registry,
  runningTurns,
});
console.log(JSON.stringify({ url: app.url }));
