/**
 * The settings API's cost: `GET /api/settings/tools` (authenticated, every
 * built-in tool with its effective settings) against bare Elysia routes on the
 * same runtime, measured in the same run with autocannon (its own process) on
 * loopback, on SQLite and on PostgreSQL. Rounds alternate the routes so all see
 * the same machine load. Two baselines:
 *
 * - `same body`: a bare route answering the very bytes the settings route
 *   answers (about 11 KB of JSON). The difference is then what the settings
 *   API itself costs: authentication, the settings lookup, the request
 *   pipeline (request id, access log). Target: at least 0.8x.
 * - `ok`: a bare route answering two bytes, for scale (the difference also
 *   holds sending 11 KB, on both sides of the loopback).
 *
 * Each round loads the four routes one after another, in an order that
 * rotates from round to round, and a ratio is taken within each round (the
 * settings route against the baseline of the same round), so a drift of the
 * machine between rounds does not land on one side. Prints requests per
 * second and p99 latency (medians over rounds), and each ratio's median over
 * the rounds with its lowest and highest round. On two cores autocannon needs
 * one of them, so a fast route's throughput is partly autocannon's: the CPU
 * time the servers (this process) spend per request is printed too, and its
 * ratio (the baseline's over the settings route's) is the throughput each
 * would reach on a core of its own.
 *
 *   npm run bench:settings          (DURATION=5 CONNECTIONS=50 ROUNDS=9 npm run bench:settings;
 *                                    BENCH_DATABASE=sqlite or postgres for one of them)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Elysia } from 'elysia';
import { createApp } from '../apps/api/src/app';
import { createAuth } from '../apps/api/src/auth/create-auth';
import { DATABASE_KINDS } from '../apps/api/src/db/column-types';
import { type AppDatabase, type DatabaseConfig, openDatabase } from '../apps/api/src/db/database';
import { migrateToLatest } from '../apps/api/src/db/migrate';
import { createLogger } from '../apps/api/src/logger';
import { startServer } from '../apps/api/src/server';
import { createDatabaseRunningTurns } from '../apps/api/src/services/chat/running-turns';
import { createModelCatalog } from '../apps/api/src/services/providers/model-catalog';
import { createProviderRegistry } from '../apps/api/src/services/providers/provider-registry';
import {
  createBuiltinToolSource,
  createToolCatalog,
  defaultToolRegistry,
} from '../apps/api/src/services/tools';
import { createBenchApiKey, signUpBenchUser } from './bench-accounts';
import { withBenchPostgres } from './bench-postgres';
import { numberFromEnv } from './env-options';
import { cpuMsByThread } from './process-cpu';

const DURATION_SECONDS = numberFromEnv('DURATION', 2, { min: 0.1, fractional: true });
const CONNECTIONS = numberFromEnv('CONNECTIONS', 32);
const ROUNDS = numberFromEnv('ROUNDS', 7);
const AUTOCANNON = join(import.meta.dir, '../node_modules/autocannon/autocannon.js');

interface LoadResult {
  requestsPerSecond: number;
  /** CPU time of this process (the servers run in it; autocannon does not) per request, µs. */
  cpuMicrosPerRequest: number;
  /** The same by thread of this process (`main` runs the JavaScript), µs per request. */
  threadMicrosPerRequest: Map<string, number>;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** Runs autocannon in its own process (node), so the load generator does not share the server's thread. */
async function load(url: string, headers: Record<string, string> = {}): Promise<LoadResult> {
  const headerArgs = Object.entries(headers).flatMap(([key, value]) => ['-H', `${key}=${value}`]);
  const cpuBefore = process.cpuUsage();
  const threadsBefore = cpuMsByThread(process.pid);
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
  const cpu = process.cpuUsage(cpuBefore);
  const threadsAfter = cpuMsByThread(process.pid);
  if (code !== 0) throw new Error(`autocannon failed (${code}): ${stderr}`);
  const result = JSON.parse(stdout) as {
    requests: { average: number; total: number };
    latency: { p99: number };
    errors: number;
    non2xx: number;
  };
  const requests = Math.max(1, result.requests.total);
  const threadMicrosPerRequest = new Map<string, number>();
  for (const [name, ms] of threadsAfter)
    threadMicrosPerRequest.set(name, ((ms - (threadsBefore.get(name) ?? 0)) * 1000) / requests);
  return {
    requestsPerSecond: result.requests.average,
    cpuMicrosPerRequest: (cpu.user + cpu.system) / requests,
    threadMicrosPerRequest,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

async function signUp(url: string): Promise<{ cookie: string; apiKey: string }> {
  const { cookie } = await signUpBenchUser(url);
  const key = await createBenchApiKey(url, cookie, 'bench');
  // A saved setting, so the route merges a real row.
  await fetch(`${url}/api/settings/tools/get_current_datetime`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ parameters: { defaultTimezone: 'Europe/Lisbon' } }),
  });
  return { cookie, apiKey: key };
}

/** Each thread's median over the rounds, busiest first. */
function threadsOf(rounds: Map<string, number>[]): Map<string, number> {
  const names = new Set(rounds.flatMap((round) => [...round.keys()]));
  const medians = [...names].map(
    (name) => [name, median(rounds.map((round) => round.get(name) ?? 0))] as const,
  );
  return new Map(medians.sort((a, b) => b[1] - a[1]));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function benchDatabase(label: string, config: DatabaseConfig): Promise<void> {
  const database: AppDatabase = openDatabase(config);
  await migrateToLatest(database);
  // Request logs are formatted as in production but not written anywhere.
  const logger = createLogger({ level: 'info', write: () => {} });
  const auth = createAuth({
    database,
    secret: 'bench-secret-bench-secret-bench-secret!!',
    allowSignup: true,
  });
  const server = startServer({
    app: createApp({
      database,
      auth,
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
  const { cookie, apiKey } = await signUp(server.url);
  const settingsUrl = `${server.url}/api/settings/tools`;
  const check = await fetch(settingsUrl, { headers: { cookie } });
  const body = await check.text();
  const tools = (JSON.parse(body) as { tools: unknown[] }).tools.length;
  const bare = new Elysia()
    .get('/bare', () => 'ok')
    .get(
      '/same-body',
      () => new Response(body, { headers: { 'content-type': 'application/json' } }),
    );
  const bareServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) => bare.handle(request),
  });
  try {
    const bareUrl = `http://127.0.0.1:${bareServer.port}`;
    // Warm-up: JIT, statement caches, connection pools.
    await load(`${bareUrl}/same-body`);
    await load(settingsUrl, { cookie });
    await load(settingsUrl, { authorization: `Bearer ${apiKey}` });

    type Route = 'bare' | 'sameBody' | 'cookie' | 'apiKey';
    const targets: Record<Route, () => Promise<LoadResult>> = {
      bare: () => load(`${bareUrl}/bare`),
      sameBody: () => load(`${bareUrl}/same-body`),
      cookie: () => load(settingsUrl, { cookie }),
      apiKey: () => load(settingsUrl, { authorization: `Bearer ${apiKey}` }),
    };
    const order: Route[] = ['bare', 'sameBody', 'cookie', 'apiKey'];
    const rounds: Record<Route, LoadResult>[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const results: Partial<Record<Route, LoadResult>> = {};
      for (let step = 0; step < order.length; step += 1) {
        const route = order[(round + step) % order.length] as Route;
        results[route] = await targets[route]();
      }
      rounds.push(results as Record<Route, LoadResult>);
    }
    const summarise = (route: Route) => ({
      requestsPerSecond: median(rounds.map((round) => round[route].requestsPerSecond)),
      cpuMicros: median(rounds.map((round) => round[route].cpuMicrosPerRequest)),
      threads: threadsOf(rounds.map((round) => round[route].threadMicrosPerRequest)),
      p99Ms: median(rounds.map((round) => round[route].p99Ms)),
      failures: rounds.reduce((sum, round) => sum + round[route].errors + round[route].non2xx, 0),
    });
    /** The route's throughput over the baseline's, round by round: median, lowest, highest. */
    const ratio = (route: Route, baseline: Route) => {
      const values = rounds.map(
        (round) => round[route].requestsPerSecond / round[baseline].requestsPerSecond,
      );
      const range = `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}`;
      return `${median(values).toFixed(2)}x (${range})`;
    };
    const bareSummary = summarise('bare');
    const sameBodySummary = summarise('sameBody');
    console.log(
      `\n${label} (${tools} tools, ${(body.length / 1024).toFixed(1)} KB response, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_SECONDS} s per route, order rotating; medians over rounds, ratios taken within each round (lowest-highest); load average ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')})`,
    );
    // The threads that took at least 0.5 µs per request on some route, busiest first.
    const threadLine = (summary: ReturnType<typeof summarise>) =>
      `  ${''.padEnd(30)} by thread (µs/request): ${[...summary.threads]
        .filter(([, micros]) => micros >= 0.5)
        .map(([name, micros]) => `${name} ${micros.toFixed(1)}`)
        .join(', ')}`;
    const routeLine = (name: string, summary: ReturnType<typeof summarise>) =>
      `  ${name.padEnd(30)} ${summary.requestsPerSecond.toFixed(0).padStart(7)} req/s  p99 ${summary.p99Ms} ms`;
    console.log(
      `${routeLine('bare route, "ok"', bareSummary)}  server CPU ${bareSummary.cpuMicros.toFixed(0)} µs/request`,
    );
    console.log(threadLine(bareSummary));
    console.log(
      `${routeLine('bare route, same body', sameBodySummary)}  server CPU ${sameBodySummary.cpuMicros.toFixed(0)} µs/request`,
    );
    console.log(threadLine(sameBodySummary));
    for (const [name, route] of [
      ['settings, session cookie', 'cookie'],
      ['settings, API key (bearer)', 'apiKey'],
    ] as const) {
      const summary = summarise(route);
      console.log(
        `${routeLine(name, summary)}  ${ratio(route, 'sameBody')} same body (target >= 0.80x), ${ratio(route, 'bare')} "ok"${summary.failures > 0 ? `  FAILURES ${summary.failures}` : ''}`,
      );
      console.log(
        `  ${''.padEnd(30)} server CPU ${summary.cpuMicros.toFixed(0)} µs/request: ${(sameBodySummary.cpuMicros / summary.cpuMicros).toFixed(2)}x same body's throughput per core, ${(bareSummary.cpuMicros / summary.cpuMicros).toFixed(2)}x "ok"'s`,
      );
      console.log(threadLine(summary));
    }
  } finally {
    await bareServer.stop(true);
    await server.stop();
  }
}

/**
 * Each database is measured in a process of its own (this script, run again
 * with BENCH_DATABASE set), so neither inherits the other's heap, caches and
 * threads.
 */
const only = process.env.BENCH_DATABASE;
if (only === 'sqlite') {
  const sqliteDirectory = mkdtempSync(join(tmpdir(), 'mango-bench-'));
  try {
    await benchDatabase('SQLite', { kind: 'sqlite', path: join(sqliteDirectory, 'mango.db') });
  } finally {
    rmSync(sqliteDirectory, { recursive: true, force: true });
  }
} else if (only === 'postgres') {
  await withBenchPostgres((url) => benchDatabase('PostgreSQL', { kind: 'postgres', url }));
} else if (only !== undefined) {
  console.error(`BENCH_DATABASE must be sqlite or postgres, not "${only}".`);
  process.exit(2);
} else {
  for (const database of DATABASE_KINDS) {
    const child = Bun.spawn([process.execPath, import.meta.path], {
      env: { ...process.env, BENCH_DATABASE: database },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if ((await child.exited) !== 0) process.exit(1);
  }
}
