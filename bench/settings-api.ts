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
 * The settings route is loaded as the server's admin (its first account), with
 * a session cookie and with an API key, and as a plain user with a granted
 * root (session cookie): a shared server's users are mostly that, and their
 * shells are listed available only where the sandbox works, so their list
 * asks for its status. Last, a plain user with an MCP server of their own
 * (the reference server-everything over stdio, connected once, then listed
 * from memory), against a bare route answering the bytes of their longer list.
 *
 * Each round loads the routes one after another, in an order that
 * rotates from round to round, and a ratio is taken within each round (the
 * settings route against the baseline of the same round), so a drift of the
 * machine between rounds does not land on one side. Each database is measured
 * in several processes one after another (PROCESSES), each with its own
 * servers, warm-up and rounds: on a virtual machine a process can run slow for
 * its whole life, every route in it (docs/operations.md#a-slow-process), so
 * the figures are medians over the rounds of all of them, and each process's
 * own line shows how fast its memory answered (random reads over 64 MiB, after
 * its rounds). Prints requests per second and p99 latency, and each ratio's
 * median with its lowest and highest round. On two cores autocannon needs one
 * of them, so a fast route's throughput is partly autocannon's: the CPU time
 * the servers' process spends per request is printed too, and its ratio (the
 * baseline's over the settings route's) is the throughput each would reach on
 * a core of its own.
 *
 *   npm run bench:settings          (DURATION=5 CONNECTIONS=50 ROUNDS=5 PROCESSES=3 npm run bench:settings;
 *                                    BENCH_DATABASE=sqlite or postgres for one of them)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Elysia } from 'elysia';
import { type AppDependencies, createApp, createAppServices } from '../apps/api/src/app';
import { createAuth } from '../apps/api/src/auth/create-auth';
import { DATABASE_KINDS, type DatabaseKind } from '../apps/api/src/db/column-types';
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
import { referenceServerEntry } from '../apps/api/tests/support/mcp/mcp-fixtures';
import { startTestPostgres } from '../apps/api/tests/support/postgres-server';
import { createBenchApiKey, signUpBenchUser } from './bench-accounts';
import { choiceFromEnv, numberFromEnv } from './env-options';
import { memoryProbeNsPerRead } from './memory-probe';
import { cpuMsByThread } from './process-cpu';
import {
  BASELINE_OF,
  mainMicros,
  type ProcessLoads,
  processesAtUsualSpeed,
  type Ratio,
  ROUTES,
  type RoundLoads,
  type Route,
  type RouteLoad,
  type RouteSummary,
  SETTINGS_ROUTES,
  type SettingsRoute,
  summariseRoute,
  throughputRatio,
} from './settings-figures';

const DURATION_SECONDS = numberFromEnv('DURATION', 2, { min: 0.1, fractional: true });
const CONNECTIONS = numberFromEnv('CONNECTIONS', 32);
const ROUNDS = numberFromEnv('ROUNDS', 3);
const PROCESSES = numberFromEnv('PROCESSES', 3);
const AUTOCANNON = join(import.meta.dir, '../node_modules/autocannon/autocannon.js');
/** Set by the bench for the processes it starts: the database one of them measures (JSON). */
const PROCESS_DATABASE = 'SETTINGS_BENCH_PROCESS_DATABASE';
/** The line before a measuring process's result on its stdout. */
const RESULT_MARK = 'settings-bench-result:';

/** Runs autocannon in its own process (node), so the load generator does not share the server's thread. */
async function load(url: string, headers: Record<string, string> = {}): Promise<RouteLoad> {
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
  const threadMicrosPerRequest: Record<string, number> = {};
  for (const [name, ms] of threadsAfter)
    threadMicrosPerRequest[name] = ((ms - (threadsBefore.get(name) ?? 0)) * 1000) / requests;
  return {
    requestsPerSecond: result.requests.average,
    cpuMicrosPerRequest: (cpu.user + cpu.system) / requests,
    threadMicrosPerRequest,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** A saved setting, so the route merges a real row. */
async function saveASetting(url: string, cookie: string): Promise<void> {
  const saved = await fetch(`${url}/api/settings/tools/get_current_datetime`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ parameters: { defaultTimezone: 'Europe/Lisbon' } }),
  });
  if (!saved.ok) throw new Error(`saving a setting failed: ${saved.status} ${await saved.text()}`);
}

interface BenchCredentials {
  /** The admin's (the first account's) session. */
  cookie: string;
  apiKey: string;
  /** A plain user's session, with `root` granted to them. */
  grantedCookie: string;
}

async function signUp(url: string, root: string): Promise<BenchCredentials> {
  const { cookie } = await signUpBenchUser(url);
  const key = await createBenchApiKey(url, cookie, 'bench');
  await saveASetting(url, cookie);
  const plain = await signUpBenchUser(url, 'granted@example.test');
  const granted = await fetch(`${url}/api/admin/users/${plain.userId}/roots`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ roots: [root] }),
  });
  if (!granted.ok)
    throw new Error(`granting a root failed: ${granted.status} ${await granted.text()}`);
  await saveASetting(url, plain.cookie);
  return { cookie, apiKey: key, grantedCookie: plain.cookie };
}

/**
 * A plain user with an MCP server of their own (server-everything over stdio,
 * its command allowed): connected once, so its tools are known, and listed
 * from memory by every request after.
 */
async function signUpWithMcpServer(url: string): Promise<{ cookie: string; mcpTools: number }> {
  const { cookie } = await signUpBenchUser(url, 'mcp@example.test');
  const created = await fetch(`${url}/api/mcp/servers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({
      name: 'Everything',
      type: 'stdio',
      command: process.execPath,
      args: [referenceServerEntry('@modelcontextprotocol/server-everything')],
    }),
  });
  if (!created.ok)
    throw new Error(`creating an MCP server failed: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  const tested = await fetch(`${url}/api/mcp/servers/${id}/test`, {
    method: 'POST',
    headers: { cookie },
  });
  const result = (await tested.json()) as { ok: boolean; toolCount?: number; error?: unknown };
  if (!result.ok) throw new Error(`the MCP server did not answer: ${JSON.stringify(result)}`);
  await saveASetting(url, cookie);
  return { cookie, mcpTools: result.toolCount ?? 0 };
}

interface MeasuredProcess extends ProcessLoads {
  tools: number;
  bodyBytes: number;
  /** The granted user's list (their shells may say why they are unavailable). */
  grantedBodyBytes: number;
  /** The MCP user's server's tools, and the size of their list. */
  mcpTools: number;
  mcpBodyBytes: number;
}

/** In a measuring process: starts the servers on the database, loads the routes round by round. */
async function measure(config: DatabaseConfig): Promise<MeasuredProcess> {
  const database: AppDatabase = openDatabase(config);
  await migrateToLatest(database);
  // Request logs are formatted as in production but not written anywhere.
  const logger = createLogger({ level: 'info', write: () => {} });
  const auth = createAuth({
    database,
    secret: 'bench-secret-bench-secret-bench-secret!!',
    allowSignup: true,
  });
  const dependencies: AppDependencies = {
    database,
    auth,
    tools: createToolCatalog([createBuiltinToolSource(defaultToolRegistry)]),
    providers: createProviderRegistry({}),
    models: createModelCatalog({ providers: createProviderRegistry({}) }),
    runningTurns: createDatabaseRunningTurns(database),
    // A plain user's stdio server may run this runtime (the MCP user's server-everything).
    mcp: { stdioAllow: [process.execPath] },
    logger,
  };
  const services = createAppServices(dependencies);
  const server = startServer({
    app: createApp(dependencies, services),
    database,
    logger,
    host: '127.0.0.1',
    port: 0,
  });
  const root = mkdtempSync(join(tmpdir(), 'mango-bench-root-'));
  const { cookie, apiKey, grantedCookie } = await signUp(server.url, root);
  const settingsUrl = `${server.url}/api/settings/tools`;
  /** The list a session's user gets, checked to be one. */
  const listBody = async (sessionCookie: string): Promise<string> => {
    const response = await fetch(settingsUrl, { headers: { cookie: sessionCookie } });
    if (!response.ok) throw new Error(`a settings list failed: ${response.status}`);
    return response.text();
  };
  const body = await listBody(cookie);
  const tools = (JSON.parse(body) as { tools: unknown[] }).tools.length;
  const grantedBytes = (await listBody(grantedCookie)).length;
  const { cookie: mcpCookie, mcpTools } = await signUpWithMcpServer(server.url);
  const mcpBody = await listBody(mcpCookie);
  const bare = new Elysia()
    .get('/bare', () => 'ok')
    .get(
      '/same-body',
      () => new Response(body, { headers: { 'content-type': 'application/json' } }),
    )
    .get(
      '/same-body-mcp',
      () => new Response(mcpBody, { headers: { 'content-type': 'application/json' } }),
    );
  const bareServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) => bare.handle(request),
  });
  try {
    const bareUrl = `http://127.0.0.1:${bareServer.port}`;
    const targets: Record<Route, () => Promise<RouteLoad>> = {
      bare: () => load(`${bareUrl}/bare`),
      sameBody: () => load(`${bareUrl}/same-body`),
      cookie: () => load(settingsUrl, { cookie }),
      apiKey: () => load(settingsUrl, { authorization: `Bearer ${apiKey}` }),
      granted: () => load(settingsUrl, { cookie: grantedCookie }),
      mcpSameBody: () => load(`${bareUrl}/same-body-mcp`),
      mcp: () => load(settingsUrl, { cookie: mcpCookie }),
    };
    // Warm-up: JIT, statement caches, connection pools.
    for (const route of ROUTES) await targets[route]();
    const rounds: RoundLoads[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const results: Partial<RoundLoads> = {};
      for (let step = 0; step < ROUTES.length; step += 1) {
        const route = ROUTES[(round + step) % ROUTES.length] as Route;
        results[route] = await targets[route]();
      }
      rounds.push(results as RoundLoads);
    }
    return {
      rounds,
      memoryNsPerRead: memoryProbeNsPerRead(),
      tools,
      bodyBytes: body.length,
      grantedBodyBytes: grantedBytes,
      mcpTools,
      mcpBodyBytes: mcpBody.length,
    };
  } finally {
    await bareServer.stop(true);
    await services.mcpConnections.closeAll();
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Starts a process that measures one database; resolves with what it measured. */
async function measureInProcess(config: DatabaseConfig): Promise<MeasuredProcess> {
  const child = Bun.spawn([process.execPath, import.meta.path], {
    env: { ...process.env, [PROCESS_DATABASE]: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [output, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  const at = output.lastIndexOf(RESULT_MARK);
  if (code !== 0 || at < 0)
    throw new Error(`a measuring process failed (exit ${code}): ${output.slice(-2000)}`);
  return JSON.parse(output.slice(at + RESULT_MARK.length)) as MeasuredProcess;
}

/** Measures one database in PROCESSES processes, one after another. */
async function benchDatabase(kind: DatabaseKind): Promise<MeasuredProcess[]> {
  const measured: MeasuredProcess[] = [];
  if (kind === 'sqlite') {
    for (let index = 0; index < PROCESSES; index += 1) {
      const directory = mkdtempSync(join(tmpdir(), 'mango-bench-'));
      try {
        measured.push(
          await measureInProcess({ kind: 'sqlite', path: join(directory, 'mango.db') }),
        );
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    }
    return measured;
  }
  // One throwaway PostgreSQL; each process gets a fresh database in it.
  const postgres = await startTestPostgres();
  try {
    for (let index = 0; index < PROCESSES; index += 1)
      measured.push(
        await measureInProcess({ kind: 'postgres', url: await postgres.createDatabase() }),
      );
  } finally {
    postgres.stop();
  }
  return measured;
}

const LABELS: Record<SettingsRoute, string> = {
  cookie: 'session cookie',
  apiKey: 'API key (bearer)',
  granted: 'user with a root',
  mcp: 'user with an MCP server',
};

const formatRatio = (ratio: Ratio) =>
  `${ratio.median.toFixed(2)}x (${ratio.lowest.toFixed(2)}-${ratio.highest.toFixed(2)})`;

function printDatabase(label: string, measured: MeasuredProcess[]): void {
  const [first] = measured;
  if (!first) return;
  const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  console.log(
    `\n${label} (${first.tools} tools, ${kilobytes(first.bodyBytes)} response; the user with a root ${kilobytes(first.grantedBodyBytes)}; the MCP user ${first.mcpTools} more tools, ${kilobytes(first.mcpBodyBytes)}; ${CONNECTIONS} connections, ${measured.length} processes of ${ROUNDS} rounds, ${DURATION_SECONDS} s per route, order rotating; medians over all rounds, ratios taken within each round (lowest-highest); load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')})`,
  );
  // The threads that took at least 0.5 µs per request on some route, busiest first.
  const threadLine = (summary: RouteSummary) =>
    `  ${''.padEnd(34)} by thread (µs/request): ${summary.threads
      .filter(([, micros]) => micros >= 0.5)
      .map(([name, micros]) => `${name} ${micros.toFixed(1)}`)
      .join(', ')}`;
  const routeLine = (name: string, summary: RouteSummary) =>
    `  ${name.padEnd(34)} ${summary.requestsPerSecond.toFixed(0).padStart(7)} req/s  p99 ${summary.p99Ms} ms`;
  const bare = summariseRoute(measured, 'bare');
  console.log(
    `${routeLine('bare route, "ok"', bare)}  server CPU ${bare.cpuMicros.toFixed(0)} µs/request`,
  );
  console.log(threadLine(bare));
  for (const [name, route] of [
    ['bare route, same body', 'sameBody'],
    ["bare route, the MCP user's body", 'mcpSameBody'],
  ] as const) {
    const summary = summariseRoute(measured, route);
    console.log(
      `${routeLine(name, summary)}  server CPU ${summary.cpuMicros.toFixed(0)} µs/request`,
    );
    console.log(threadLine(summary));
  }
  for (const route of SETTINGS_ROUTES) {
    const baseline = BASELINE_OF[route];
    const summary = summariseRoute(measured, route);
    const baselineCpu = summariseRoute(measured, baseline).cpuMicros;
    console.log(
      `${routeLine(`settings, ${LABELS[route]}`, summary)}  ${formatRatio(throughputRatio(measured, route, baseline))} same body (target >= 0.80x), ${formatRatio(throughputRatio(measured, route, 'bare'))} "ok"${summary.failures > 0 ? `  FAILURES ${summary.failures}` : ''}`,
    );
    console.log(
      `  ${''.padEnd(34)} server CPU ${summary.cpuMicros.toFixed(0)} µs/request: ${(baselineCpu / summary.cpuMicros).toFixed(2)}x same body's throughput per core, ${(bare.cpuMicros / summary.cpuMicros).toFixed(2)}x "ok"'s`,
    );
    console.log(threadLine(summary));
  }
  console.log(
    '  by process: memory (random reads over 64 MiB, ns each), then JavaScript-thread µs per request (medians over its rounds) and throughput against the same body',
  );
  const ratios = (processes: readonly MeasuredProcess[]) =>
    SETTINGS_ROUTES.map(
      (route) =>
        `${LABELS[route]} ${formatRatio(throughputRatio(processes, route, BASELINE_OF[route]))}`,
    ).join(', ');
  const usual = processesAtUsualSpeed(measured);
  if (usual.length < measured.length)
    console.log(
      `  over the ${usual.length} of ${measured.length} processes whose memory read within 20 % of the fastest's: ${ratios(usual)} same body`,
    );
  measured.forEach((one, index) => {
    const routes = SETTINGS_ROUTES.map(
      (route) =>
        `${LABELS[route]} ${mainMicros(one, route).toFixed(1)} (${throughputRatio([one], route, BASELINE_OF[route]).median.toFixed(2)}x)`,
    ).join(', ');
    console.log(
      `  ${`process ${index + 1}`.padEnd(12)} memory ${one.memoryNsPerRead.toFixed(1).padStart(5)} ns   same body ${mainMicros(one, 'sameBody').toFixed(1)}, MCP user's body ${mainMicros(one, 'mcpSameBody').toFixed(1)}; ${routes}`,
    );
  });
}

const ownDatabase = process.env[PROCESS_DATABASE];
if (ownDatabase !== undefined) {
  const measured = await measure(JSON.parse(ownDatabase) as DatabaseConfig);
  console.log(`${RESULT_MARK}${JSON.stringify(measured)}`);
} else {
  const only = process.env.BENCH_DATABASE?.trim()
    ? choiceFromEnv('BENCH_DATABASE', 'sqlite', DATABASE_KINDS)
    : undefined;
  const labels: Record<DatabaseKind, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
  for (const kind of only ? [only] : DATABASE_KINDS)
    printDatabase(labels[kind], await benchDatabase(kind));
}
