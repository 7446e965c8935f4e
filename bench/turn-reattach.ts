/**
 * Re-attach latency (docs/chat-turns.md#re-attaching): with TURNS turns
 * running (each streaming from the fake provider, which then holds its
 * connection open), how long from a `GET /api/chats/:id/turns/current/events`
 * request to its first replayed event — on the instance running the turns
 * (from memory) and on a second instance with its own database connection
 * (from the database). The baseline, in the same run and under the same load,
 * is a signed-in `GET /api/chats/:id` on the same instance: the same
 * authentication and chat lookup, answering JSON. Target: p99 ≤ 20 ms.
 *
 *   npm run bench:reattach               (TURNS=200 SAMPLES=400 DATABASE=sqlite|postgres)
 */
import type { Chat } from '@mango/shared';
import { openDatabase } from '../apps/api/src/db/database';
import { createDatabaseRunningTurns } from '../apps/api/src/services/chat/running-turns';
import { createProviderRegistry } from '../apps/api/src/services/providers/provider-registry';
import { startFakeProviderServer } from '../apps/api/tests/support/fake-provider';
import { readSseFrames } from '../apps/api/tests/support/sse-client';
import { startTestApp, type TestApp, type TestUser } from '../apps/api/tests/support/test-app';
import {
  createTestDatabase,
  DATABASE_KINDS,
  type TestDatabaseKind,
} from '../apps/api/tests/support/test-databases';
import { choiceFromEnv, numberFromEnv } from './env-options';

const TURNS = numberFromEnv('TURNS', 200);
const SAMPLES = numberFromEnv('SAMPLES', 400);
const KIND: TestDatabaseKind = choiceFromEnv('DATABASE', 'sqlite', DATABASE_KINDS);

const fake = await startFakeProviderServer();
fake.respondWith('openai', () => ({
  content: [{ type: 'text', text: 'A long answer that is still being written, word by word.' }],
  fragmentSize: 4,
  fault: { type: 'hang', afterFrames: 12 },
}));
const testDatabase = await createTestDatabase(KIND);
const providers = createProviderRegistry({
  openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
});
const app = startTestApp(testDatabase.database, { providers });
const otherDatabase = openDatabase(testDatabase.config);
const other = startTestApp(otherDatabase, {
  providers,
  runningTurns: createDatabaseRunningTurns(otherDatabase),
});
const user = await app.signUp();

const post = (instance: TestApp, path: string, body: unknown, as: TestUser) =>
  instance.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    user: as,
  });

// Start the turns; each one's starter reads its first events, then lets go (the turn runs on).
const chats: Chat[] = [];
for (let index = 0; index < TURNS; index++)
  chats.push(
    (await (await post(app, '/api/chats', { model: 'openai:gpt-5' }, user)).json()) as Chat,
  );
await Promise.all(
  chats.map(async (chat) => {
    const controller = new AbortController();
    const response = await app.fetch(`/api/chats/${chat.id}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Write slowly.' }),
      user,
      signal: controller.signal,
    });
    const frames = readSseFrames(response);
    for (let seen = 0; seen < 4; seen++) await frames.next();
    controller.abort();
    await frames.return(undefined).catch(() => {});
  }),
);
// Let every turn's events reach the database, for the other instance.
await Bun.sleep(300);

async function timeFirstEvent(instance: TestApp, chat: Chat): Promise<number> {
  const controller = new AbortController();
  const started = performance.now();
  const response = await instance.fetch(`/api/chats/${chat.id}/turns/current/events`, {
    user,
    signal: controller.signal,
  });
  const frames = readSseFrames(response);
  const first = await frames.next();
  const elapsed = performance.now() - started;
  if (first.value?.event !== 'turn_started') throw new Error(`first frame: ${first.value?.event}`);
  controller.abort();
  await frames.return(undefined).catch(() => {});
  return elapsed;
}

async function timeChatRead(instance: TestApp, chat: Chat): Promise<number> {
  const started = performance.now();
  const response = await instance.fetch(`/api/chats/${chat.id}`, { user });
  await response.json();
  return performance.now() - started;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[
    Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)
  ] as number;

const samples = { local: [] as number[], other: [] as number[], baseline: [] as number[] };
// Interleaved, so every series sees the same load.
for (let index = 0; index < SAMPLES; index++) {
  const chat = chats[index % chats.length] as Chat;
  samples.baseline.push(await timeChatRead(app, chat));
  samples.local.push(await timeFirstEvent(app, chat));
  samples.other.push(await timeFirstEvent(other, chat));
}
const [load] = (
  await Bun.file('/proc/loadavg')
    .text()
    .catch(() => '? ? ?')
).split(' ');
console.log(
  `Re-attach with ${TURNS} turns running on ${KIND}, ${SAMPLES} samples each (load average ${load})`,
);
console.log('series                                 p50 ms   p99 ms   p99 / baseline p99');
const baseP99 = percentile(samples.baseline, 99);
for (const [name, values] of [
  ['GET /api/chats/:id (baseline)', samples.baseline],
  ['re-attach, instance running the turns', samples.local],
  ['re-attach, another instance', samples.other],
] as const) {
  const p99 = percentile(values, 99);
  console.log(
    `${name.padEnd(38)} ${percentile(values, 50).toFixed(2).padStart(6)}   ${p99.toFixed(2).padStart(6)}   ${(p99 / baseP99).toFixed(2).padStart(6)}×${name.startsWith('re-attach') ? (p99 <= 20 ? '  (within 20 ms)' : '  (OVER 20 ms)') : ''}`,
  );
}

await app.stop();
await other.stop();
await otherDatabase.close();
await testDatabase.dispose();
await fake.close();
