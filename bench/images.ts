/**
 * Images (docs/images.md#benchmark), two figures measured against baselines
 * taken in the same run:
 *
 * 1. Memory. generate_image makes four 4 MB images (OpenAI Images wire format
 *    from the fake image server, the official SDK, a real SQLite images store),
 *    ten calls in a row. The server's memory after the calls (garbage
 *    collected) is compared with before; the bytes never travel through the
 *    tool result's JSON, so growth stays far below the images' size (target:
 *    under 40 MB for four 4 MB images). The result JSON's size is printed too.
 * 2. Serving. `GET /api/images/:id` (authenticated, owner check, the row read
 *    from the database) against a bare route answering the same bytes, with
 *    autocannon on loopback, on SQLite and PostgreSQL, rounds interleaved
 *    (target: at least 0.8x the bare route).
 *
 *   npm run bench:images          (IMAGE_KB=512 DURATION=5 CONNECTIONS=32 ROUNDS=2 CALLS=10 npm run bench:images)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../apps/api/src/app';
import { createAuth } from '../apps/api/src/auth/create-auth';
import { type AppDatabase, type DatabaseConfig, openDatabase } from '../apps/api/src/db/database';
import { migrateToLatest } from '../apps/api/src/db/migrate';
import { createLogger } from '../apps/api/src/logger';
import { startServer } from '../apps/api/src/server';
import { createDatabaseRunningTurns } from '../apps/api/src/services/chat/running-turns';
import { createDatabaseImageStore } from '../apps/api/src/services/images/database-image-store';
import { createImageModelRegistry } from '../apps/api/src/services/providers/image-model-registry';
import { createModelCatalog } from '../apps/api/src/services/providers/model-catalog';
import { createProviderRegistry } from '../apps/api/src/services/providers/provider-registry';
import {
  createBuiltinToolSource,
  createGenerateImageTool,
  createToolCatalog,
  createToolRegistry,
  defaultToolRegistry,
  executeTool,
} from '../apps/api/src/services/tools';
import { startFakeImageServer } from '../apps/api/tests/support/fake-images/fake-image-server';
import { createNoisePng } from '../apps/api/tests/support/images/test-png';
import { createTestCallContext } from '../apps/api/tests/support/tool-context';
import { signUpBenchUser } from './bench-accounts';
import { withBenchPostgres } from './bench-postgres';
import { numberFromEnv } from './env-options';

const DURATION_SECONDS = numberFromEnv('DURATION', 5, { min: 0.1, fractional: true });
const CONNECTIONS = numberFromEnv('CONNECTIONS', 32);
const ROUNDS = numberFromEnv('ROUNDS', 2);
const CALLS = numberFromEnv('CALLS', 10);
const IMAGE_BYTES = numberFromEnv('IMAGE_KB', 512) * 1024;
const AUTOCANNON = join(import.meta.dir, '../node_modules/autocannon/autocannon.js');
const MB = 1024 * 1024;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function settledMemory(): number {
  Bun.gc(true);
  Bun.gc(true);
  return process.memoryUsage().rss;
}

async function benchMemory(directory: string): Promise<void> {
  const database = openDatabase({ kind: 'sqlite', path: join(directory, 'memory.db') });
  await migrateToLatest(database);
  const fake = await startFakeImageServer();
  const images = createDatabaseImageStore(database);
  const models = createImageModelRegistry(
    [{ name: 'openai:gpt-image-1', provider: 'openai', modelId: 'gpt-image-1' }],
    { openai: { apiKey: 'bench', baseURL: fake.baseUrl('openai') } },
  );
  const registry = createToolRegistry();
  registry.register(createGenerateImageTool({ models, images }));
  const now = new Date().toISOString();
  await database.db
    .insertInto('users')
    .values({
      id: 'u',
      name: 'u',
      email: 'u@example.test',
      email_verified: false,
      image: null,
      role: 'user',
      created_at: now,
      updated_at: now,
    })
    .execute();
  await database.db
    .insertInto('chats')
    .values({
      id: 'c',
      user_id: 'u',
      title: 't',
      mode: 'chat',
      working_directory: null,
      restrict_to_working_directory: true,
      model: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  const bigImages = [0, 1, 2, 3].map(() => createNoisePng(4 * MB));
  const call = async () => {
    fake.enqueue('openai', ...bigImages.map((bytes) => ({ kind: 'image' as const, bytes })));
    const result = await executeTool(
      'generate_image',
      { prompt: 'four large images', count: 4 },
      createTestCallContext({ userId: 'u', chatId: 'c', toolCallId: 'call' }),
      { enabled: true, parameters: { timeoutSeconds: 600 } },
      { registry },
    );
    return JSON.stringify(result).length;
  };
  await call(); // warm-up: JIT, SDK, statement caches
  fake.reset();
  const before = settledMemory();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  let resultBytes = 0;
  for (let index = 0; index < CALLS; index += 1) {
    resultBytes = await call();
    fake.reset();
  }
  clearInterval(sampler);
  const after = settledMemory();
  const imageMb = (bigImages[0]?.byteLength ?? 0) / MB;
  console.log(
    `\nMemory: ${CALLS} calls of generate_image, 4 images of ${imageMb.toFixed(1)} MB each (OpenAI wire format, SQLite store)`,
  );
  console.log(`  tool result JSON         ${resultBytes} bytes per call (references only)`);
  console.log(
    `  RSS growth after calls   ${((after - before) / MB).toFixed(1)} MB (target < 40 MB; ${(4 * imageMb).toFixed(0)} MB of images per call, ${(CALLS * 4 * imageMb).toFixed(0)} MB in all)`,
  );
  console.log(`  RSS peak during calls    +${((peak - before) / MB).toFixed(1)} MB over the start`);
  await fake.close();
  await database.close();
}

interface LoadResult {
  requestsPerSecond: number;
  p99Ms: number;
  failures: number;
}

async function load(url: string, headers: Record<string, string> = {}): Promise<LoadResult> {
  const headerArgs = Object.entries(headers).flatMap(([key, value]) => ['-H', `${key}=${value}`]);
  const child = Bun.spawn(
    [
      'node',
      AUTOCANNON,
      '--json',
      '-c',
      String(CONNECTIONS),
      '-d',
      String(DURATION_SECONDS),
      ...headerArgs,
      url,
    ],
    { stdout: 'pipe', stderr: 'pipe' },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`autocannon failed (${code}): ${stderr}`);
  const result = JSON.parse(stdout) as {
    requests: { average: number };
    latency: { p99: number };
    errors: number;
    non2xx: number;
  };
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    failures: result.errors + result.non2xx,
  };
}

async function benchServing(label: string, config: DatabaseConfig): Promise<void> {
  const database: AppDatabase = openDatabase(config);
  await migrateToLatest(database);
  const logger = createLogger({ level: 'info', write: () => {} });
  const auth = createAuth({
    database,
    secret: 'bench-secret-bench-secret-bench-secret!!',
    allowSignup: true,
  });
  const images = createDatabaseImageStore(database);
  const server = startServer({
    app: createApp({
      database,
      auth,
      images,
      tools: createToolCatalog([createBuiltinToolSource(defaultToolRegistry)]),
      providers: createProviderRegistry({}),
      models: createModelCatalog({ providers: createProviderRegistry({}) }),
      runningTurns: createDatabaseRunningTurns(database),
      logger,
    }),
    database,
    logger,
    host: '127.0.0.1',
    port: 0,
  });
  const bytes = createNoisePng(IMAGE_BYTES);
  const bareServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () =>
      new Response(bytes as Uint8Array<ArrayBuffer>, {
        headers: {
          'content-type': 'image/png',
          'cache-control': 'private, max-age=31536000, immutable',
        },
      }),
  });
  try {
    const { userId, cookie } = await signUpBenchUser(server.url);
    const chat = (await (
      await fetch(`${server.url}/api/chats`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ title: 'bench' }),
      })
    ).json()) as { id: string };
    const saved = await images.save({
      userId,
      chatId: chat.id,
      mimeType: 'image/png',
      bytes,
    });
    const imageUrl = `${server.url}${saved.url}`;
    const bareUrl = `http://127.0.0.1:${bareServer.port}/`;
    const check = await fetch(imageUrl, { headers: { cookie } });
    if (check.status !== 200 || (await check.arrayBuffer()).byteLength !== bytes.byteLength)
      throw new Error(`the image route answered ${check.status}`);
    await load(bareUrl);
    await load(imageUrl, { cookie });
    const rounds: { bare: LoadResult; image: LoadResult }[] = [];
    for (let round = 0; round < ROUNDS; round += 1)
      rounds.push({ bare: await load(bareUrl), image: await load(imageUrl, { cookie }) });
    const summarise = (pick: (round: (typeof rounds)[number]) => LoadResult) => ({
      requestsPerSecond: median(rounds.map((round) => pick(round).requestsPerSecond)),
      p99Ms: median(rounds.map((round) => pick(round).p99Ms)),
      failures: rounds.reduce((sum, round) => sum + pick(round).failures, 0),
    });
    const bare = summarise((round) => round.bare);
    const image = summarise((round) => round.image);
    console.log(
      `\nServing, ${label} (${(bytes.byteLength / 1024).toFixed(0)} KB image, ${CONNECTIONS} connections, ${ROUNDS} x ${DURATION_SECONDS} s rounds, medians)`,
    );
    console.log(
      `  bare route, same bytes     ${bare.requestsPerSecond.toFixed(0).padStart(7)} req/s  p99 ${bare.p99Ms} ms`,
    );
    console.log(
      `  GET /api/images/:id        ${image.requestsPerSecond.toFixed(0).padStart(7)} req/s  p99 ${image.p99Ms} ms  ratio ${(image.requestsPerSecond / bare.requestsPerSecond).toFixed(2)}x (target >= 0.80x)${image.failures + bare.failures > 0 ? `  FAILURES ${image.failures + bare.failures}` : ''}`,
    );
  } finally {
    await bareServer.stop(true);
    await server.stop();
  }
}

const directory = mkdtempSync(join(tmpdir(), 'mango-bench-images-'));
try {
  await benchMemory(directory);
  await benchServing('SQLite', { kind: 'sqlite', path: join(directory, 'serve.db') });
  await withBenchPostgres((url) => benchServing('PostgreSQL', { kind: 'postgres', url }));
} finally {
  rmSync(directory, { recursive: true, force: true });
}
