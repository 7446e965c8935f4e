/**
 * The load bench (docs/chat-turns.md#tests-and-the-benchmark), processes
 * besides this one: the fake provider (`fake-provider-entry.ts`), the real
 * servers (`apps/api/src/index.ts`, turns running in them, each with SQLite
 * in a temp directory of its own or a PostgreSQL database of its own)
 * pointed at the fake through `OPENAI_COMPATIBLE_BASE_URL`, and the load
 * client (`load-client.ts`). The client runs each case's turns over HTTP
 * and, interleaved batch by batch, the direct baseline: the provider
 * requests the server made for one recorded turn, sent straight to the fake
 * through the same SDK and parser. Added latency is turn minus direct, per
 * round at p50 and p99; the figures printed are medians over the rounds.
 * The rounds go to the servers in turn (SERVERS, 3 by default): on a virtual
 * machine one process can run slow for its whole life
 * (docs/operations.md#a-slow-process), and a run measured in one server
 * would carry that process's speed. Then it holds 200 turns running in the
 * first server and prints its memory per running turn.
 *
 *   npm run bench:load     (LOAD_ROUNDS=30 WARMUP_ROUNDS=6 SERVERS=3 SOLO_ROUNDS=12 CONCURRENCY=200 STEPS=5 DATABASE=postgres MEMORY_TURNS=200
 *                           PROFILE_DIR=<dir>: each server's CPU profile, written when it stops;
 *                           SERVER_STDERR=<file>: the servers' stderr, kept (<file>, <file>.2, …); BUN_JSC_*
 *                           variables are passed to the servers, e.g. BUN_JSC_logGC=basic for a line per
 *                           garbage collection)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQLITE_FILE_NAME } from '../../apps/api/src/config';
import { DATABASE_KINDS, type DatabaseKind } from '../../apps/api/src/db/column-types';
import { ENDED_TURN_KEPT_MS } from '../../apps/api/src/services/chat/turn-events/turn-event-log';
import { startFakeProviderProcess } from '../../apps/api/tests/support/fake-provider';
import type { TestPostgresServer } from '../../apps/api/tests/support/postgres-server';
import {
  type ServerProcess,
  startServerProcess,
} from '../../apps/api/tests/support/server-process';
import { readSseFrames } from '../../apps/api/tests/support/sse-client';
import { createBenchApiKey, signUpBenchUser } from '../bench-accounts';
import { choiceFromEnv, numberFromEnv } from '../env-options';
import { figuresOf, type LoadCaseFigures } from './figures';
import type {
  LoadCase,
  LoadClientConfig,
  LoadTarget,
  MemoryResult,
  RoundResult,
} from './load-client';
import { readServerMemorySpeed } from './server-memory';

const MODEL = 'openai-compatible:llama3.1';
const HOLD_MARKER = 'hold the final answer';
const SERVER_ENTRY = join(import.meta.dir, '../../apps/api/src/index.ts');
const MEMORY_PROBE = join(import.meta.dir, 'server-memory-probe.ts');
const CLIENT_ENTRY = join(import.meta.dir, 'load-client.ts');

export interface LoadBenchOptions {
  concurrency: number;
  /** Rounds of `concurrency` turns (and as many direct sequences), over all the servers. */
  rounds: number;
  /**
   * Unmeasured rounds of `concurrency` turns before those, for each server: the
   * JIT is still compiling the server's code for some rounds (docs/chat-turns.md).
   */
  warmupRounds: number;
  /** Server processes the rounds go to in turn. */
  servers: number;
  /** Rounds of one turn at a time (SOLO_SAMPLES turns each), over all the servers. */
  soloRounds: number;
  soloSamples: number;
  /** Model calls per turn; each but the last calls get_current_datetime. */
  steps: number;
  /** In the concurrent case, the fake's pause after each frame (a model taking its time), ms. */
  paceMs: number;
  /** In the concurrent case, the starts are spread evenly over this long, ms. */
  spreadMs: number;
  database: DatabaseKind;
  /** Running turns held in the first server for the memory figure, after the cases (0 skips that step and its minute of waiting). */
  memoryTurns: number;
  /** Where each server writes a CPU profile (`bun --cpu-prof --cpu-prof-md`) when it stops. */
  profileDirectory?: string;
  /** Where the first server's stderr is kept (the engine's own logs, such as BUN_JSC_logGC); the others' in `<file>.2`, `<file>.3`, … */
  serverStderrFile?: string;
}

export function loadBenchOptionsFromEnv(): LoadBenchOptions {
  const concurrency = numberFromEnv('CONCURRENCY', 200);
  return {
    concurrency,
    rounds: numberFromEnv('LOAD_ROUNDS', 30),
    warmupRounds: numberFromEnv('WARMUP_ROUNDS', 6, { min: 0 }),
    servers: numberFromEnv('SERVERS', 3),
    soloRounds: numberFromEnv('SOLO_ROUNDS', 12),
    soloSamples: numberFromEnv('SOLO_SAMPLES', 40),
    steps: numberFromEnv('STEPS', 5),
    paceMs: numberFromEnv('PACE_MS', 100, { min: 0 }),
    spreadMs: numberFromEnv('SPREAD_MS', 2000, { min: 0 }),
    database: choiceFromEnv('DATABASE', 'sqlite', DATABASE_KINDS),
    memoryTurns: numberFromEnv('MEMORY_TURNS', concurrency, { min: 0 }),
    ...(process.env.PROFILE_DIR ? { profileDirectory: process.env.PROFILE_DIR } : {}),
    ...(process.env.SERVER_STDERR ? { serverStderrFile: process.env.SERVER_STDERR } : {}),
  };
}

/** The engine's options given to the bench (`BUN_JSC_*`), for the server: logs, experiments. */
function engineVariables(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith('BUN_JSC_') && entry[1] !== undefined,
    ),
  );
}

export async function loadAverage(): Promise<string> {
  const text = await Bun.file('/proc/loadavg')
    .text()
    .catch(() => '? ? ?');
  return text.split(' ').slice(0, 3).join(', ');
}

async function signUp(url: string): Promise<string> {
  const { cookie } = await signUpBenchUser(url);
  return createBenchApiKey(url, cookie, 'load bench');
}

/** One turn through the server, to record the provider requests it makes (the direct baseline). */
async function recordOneTurn(url: string, apiKey: string): Promise<void> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const chat = await fetch(`${url}/api/chats`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ model: MODEL }),
  });
  if (chat.status !== 201) throw new Error(`POST /api/chats: ${chat.status} ${await chat.text()}`);
  const { id } = (await chat.json()) as { id: string };
  const turn = await fetch(`${url}/api/chats/${id}/turns`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ content: 'Run the steps.' }),
  });
  for await (const frame of readSseFrames(turn)) if (frame.event === 'done') break;
}

/** Runs the load client in its own process; resolves with what it printed. */
async function runLoadClient(config: LoadClientConfig): Promise<(RoundResult | MemoryResult)[]> {
  const client = Bun.spawn([process.execPath, CLIENT_ENTRY], {
    env: { PATH: process.env.PATH ?? '', LOAD_CLIENT_CONFIG: JSON.stringify(config) },
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const output = await new Response(client.stdout).text();
  const code = await client.exited;
  if (code !== 0) throw new Error(`the load client failed (exit ${code})`);
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RoundResult | MemoryResult);
}

export interface LoadBenchFigures {
  cases: LoadCaseFigures[];
  memory?: MemoryResult;
  /** How fast each server's process read memory at the end (random reads over 64 MiB), ns per read. */
  serverMemoryNsPerRead: number[];
  loadBefore: string;
  loadAfter: string;
}

/** One server process of the bench, with what the client needs to reach and read it. */
interface BenchServer {
  process: ServerProcess;
  target: LoadTarget;
}

async function startBenchServer(
  options: LoadBenchOptions,
  index: number,
  directory: string,
  providerBaseUrl: string,
  databaseUrl: string | undefined,
): Promise<BenchServer> {
  const dataDirectory = join(directory, `server-${index + 1}`);
  mkdirSync(dataDirectory);
  const memoryFile = join(dataDirectory, 'server-memory.json');
  const server = await startServerProcess(
    {
      MANGO_DATA_DIR: dataDirectory,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      OPENAI_COMPATIBLE_BASE_URL: providerBaseUrl,
      OPENAI_COMPATIBLE_API_KEY: 'bench-key',
      MANGO_MODELS: MODEL,
      // No per-user limits: one user runs every turn.
      MANGO_TURNS_PER_MINUTE: '0',
      MANGO_CONCURRENT_TURNS: '0',
      MANGO_BENCH_MEMORY_FILE: memoryFile,
      ...engineVariables(),
    },
    {
      command: [
        process.execPath,
        ...(options.profileDirectory
          ? ['--cpu-prof', '--cpu-prof-md', `--cpu-prof-dir=${options.profileDirectory}`]
          : []),
        '--preload',
        MEMORY_PROBE,
        SERVER_ENTRY,
      ],
      timeoutMs: 120_000,
    },
  );
  if (options.serverStderrFile) {
    const file =
      index === 0 ? options.serverStderrFile : `${options.serverStderrFile}.${index + 1}`;
    void Bun.write(file, new Response(server.process.stderr));
  }
  let apiKey: string;
  try {
    apiKey = await signUp(server.url);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    process: server,
    target: {
      serverUrl: server.url,
      apiKey,
      serverPid: server.process.pid,
      memoryFile,
      ...(options.database === 'sqlite'
        ? { databaseFile: join(dataDirectory, SQLITE_FILE_NAME) }
        : {}),
    },
  };
}

export async function runLoadBench(options: LoadBenchOptions): Promise<LoadBenchFigures> {
  const loadBefore = await loadAverage();
  const directory = mkdtempSync(join(tmpdir(), 'mango-load-bench-'));
  const fake = await startFakeProviderProcess({
    steps: options.steps,
    tool: 'get_current_datetime',
    holdMarker: HOLD_MARKER,
    // A real provider keeps its connections open; the server and the direct baseline reuse them.
    keepAlive: true,
  });
  let postgres: TestPostgresServer | undefined;
  if (options.database === 'postgres') {
    const { startTestPostgres } = await import('../../apps/api/tests/support/postgres-server');
    postgres = await startTestPostgres();
  }
  const servers: BenchServer[] = [];
  try {
    for (let index = 0; index < options.servers; index++)
      servers.push(
        await startBenchServer(
          options,
          index,
          directory,
          fake.baseUrl('openai-compatible'),
          await postgres?.createDatabase(),
        ),
      );
    const first = servers[0] as BenchServer;
    await fake.captureRequests();
    await recordOneTurn(first.target.serverUrl, first.target.apiKey);
    const requests = await fake.takeRequests();
    if (requests.length !== options.steps)
      throw new Error(
        `the recorded turn made ${requests.length} model calls, not ${options.steps}`,
      );
    const requestsFile = join(directory, 'requests.json');
    writeFileSync(requestsFile, JSON.stringify(requests.map((request) => request.body)));
    const base = {
      servers: servers.map((server) => server.target),
      model: MODEL,
      providerBaseUrl: fake.baseUrl('openai-compatible'),
      requestsFile,
      steps: options.steps,
      holdMarker: HOLD_MARKER,
      fakePid: fake.pid,
    };
    const solo: LoadCase = {
      concurrency: 1,
      samplesPerRound: options.soloSamples,
      rounds: options.soloRounds,
      warmupRounds: 1,
      spreadMs: 0,
    };
    const concurrent: LoadCase = {
      concurrency: options.concurrency,
      samplesPerRound: options.concurrency,
      rounds: options.rounds,
      warmupRounds: options.warmupRounds,
      spreadMs: options.spreadMs,
    };
    // One turn at a time against a fake that answers at once: the server's own time per turn.
    await fake.setPace(0);
    const results = await runLoadClient({
      ...base,
      cases: [solo],
      memoryTurns: 0,
      memorySettleMs: 0,
    });
    // Many at once against a fake that takes its time, as a model does: what the server adds
    // while it carries them all. Then the memory they hold.
    await fake.setPace(options.paceMs);
    results.push(
      ...(await runLoadClient({
        ...base,
        cases: [concurrent],
        memoryTurns: options.memoryTurns,
        memorySettleMs: ENDED_TURN_KEPT_MS + 2_000,
      })),
    );
    const rounds = results.filter((result): result is RoundResult => result.type === 'round');
    const cases = [solo, concurrent];
    // Timed last, so its 64 MiB is in no other figure.
    const serverMemoryNsPerRead: number[] = [];
    for (const server of servers)
      serverMemoryNsPerRead.push(
        await readServerMemorySpeed(server.target.serverPid, server.target.memoryFile),
      );
    return {
      cases: cases.map((loadCase) =>
        figuresOf(
          loadCase.concurrency,
          rounds.filter((round) => round.concurrency === loadCase.concurrency),
          servers.length,
        ),
      ),
      memory: results.find((result): result is MemoryResult => result.type === 'memory'),
      serverMemoryNsPerRead,
      loadBefore,
      loadAfter: await loadAverage(),
    };
  } finally {
    for (const server of servers) await server.process.stop();
    await fake.stop();
    postgres?.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

const ms = (value: number) => value.toFixed(1).padStart(8);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const kib = (bytes: number) => (bytes / 1024).toFixed(0);

export function printLoadBench(options: LoadBenchOptions, figures: LoadBenchFigures): void {
  console.log(
    `\nTurns over HTTP; fake provider, ${options.servers} server${options.servers === 1 ? '' : 's'} (${options.database}; rounds go to them in turn) and load client each in a process of its own; ${options.steps} model calls per turn (openai-compatible), ${options.steps - 1} of them calling get_current_datetime`,
  );
  console.log(
    `  1 at a time: the fake answers at once. ${options.concurrency} at once: the fake sends a frame every ${options.paceMs} ms (on a fixed schedule from the first), starts spread over ${options.spreadMs} ms, measured after ${options.warmupRounds} unmeasured rounds per server (one for 1 at a time)`,
  );
  console.log(
    `  load average before ${figures.loadBefore}, after ${figures.loadAfter}; the servers' processes read memory at ${figures.serverMemoryNsPerRead.map((ns) => ns.toFixed(1)).join(', ')} ns per random read over 64 MiB at the end (bench/memory-probe.ts: a slow process reads slower and runs slower, docs/operations.md#a-slow-process)`,
  );
  console.log(
    '  at once  rounds  turn p50  turn p99  direct p50  direct p99  added p50  added p99  server CPU/turn   (ms; medians over rounds)',
  );
  for (const figure of figures.cases) {
    const target =
      figure.concurrency === options.concurrency && figure.concurrency > 1
        ? figure.addedP99 <= 20
          ? '  (p99 added ≤ 20 ms)'
          : '  (p99 added OVER 20 ms)'
        : '';
    console.log(
      `  ${String(figure.concurrency).padStart(7)}  ${String(figure.rounds.length).padStart(6)}  ${ms(figure.turnP50)}   ${ms(figure.turnP99)}     ${ms(figure.directP50)}     ${ms(figure.directP99)}    ${ms(figure.addedP50)}    ${ms(figure.addedP99)}  ${ms(figure.serverCpuPerTurn).padStart(15)}${target}`,
    );
  }
  console.log("  the same, every round's samples pooled (percentiles of all turns of the case):");
  for (const figure of figures.cases) {
    const { pooled } = figure;
    const samples = figure.rounds.reduce((sum, round) => sum + round.turnSamples.length, 0);
    console.log(
      `  ${String(figure.concurrency).padStart(7)}  ${String(samples).padStart(6)}  ${ms(pooled.turnP50)}   ${ms(pooled.turnP99)}     ${ms(pooled.directP50)}     ${ms(pooled.directP99)}    ${ms(pooled.turnP50 - pooled.directP50)}    ${ms(pooled.turnP99 - pooled.directP99)}   (turns)`,
    );
  }
  for (const figure of figures.cases) {
    const { min, q1, median: middle, q3, max } = figure.addedP99Spread;
    const threads = figure.serverCpuPerTurnByThread
      .filter(([, cpu]) => cpu >= 0.05)
      .map(([name, cpu]) => `${name} ${cpu.toFixed(2)}`)
      .join(', ');
    console.log(
      `  ${figure.concurrency} at once: added p99 over the rounds ${min.toFixed(1)} lowest, ${q1.toFixed(1)} / ${middle.toFixed(1)} / ${q3.toFixed(1)} quartiles, ${max.toFixed(1)} highest (ms); server CPU per turn by thread (ms, medians): ${threads || 'under 0.05 each'}`,
    );
    const bench = figure.benchCpu;
    console.log(
      `    the bench's own CPU on the same machine (ms, medians): fake provider ${bench.fakePerTurn.toFixed(2)} per turn and ${bench.fakePerDirect.toFixed(2)} per direct sequence, load client ${bench.clientPerTurn.toFixed(2)} and ${bench.clientPerDirect.toFixed(2)}`,
    );
    if (figure.byServer.length > 1)
      console.log(
        `    by server (rounds; added p50, added p99, main thread per turn; ms, medians): ${figure.byServer
          .map(
            (share, index) =>
              `${index + 1}: ${share.rounds}; ${share.addedP50.toFixed(1)}, ${share.addedP99.toFixed(1)}, ${share.mainThreadPerTurn.toFixed(2)}`,
          )
          .join(' · ')}`,
      );
    if (figure.serverTimed)
      console.log(
        `    by the server's own clock (its turns' stamps, to the millisecond; no request, no reading of the stream): added p50 ${figure.serverTimed.addedP50.toFixed(1)} ms, p99 ${figure.serverTimed.addedP99.toFixed(1)} ms (medians over rounds)`,
      );
  }
  const memory = figures.memory;
  if (memory) {
    const heap = (memory.running.heapUsed - memory.idle.heapUsed) / memory.turns;
    const external = (memory.running.external - memory.idle.external) / memory.turns;
    const rss = (memory.running.rss - memory.idle.rss) / memory.turns;
    console.log(
      `  memory per running turn (${memory.turns} held running in the first server, after a full GC): heap ${kib(heap)} KiB (${kib(external)} KiB of it buffers outside the collector's cells, counted as external), rss ${kib(rss)} KiB (server heap ${mib(memory.idle.heapUsed)} → ${mib(memory.running.heapUsed)} MiB, rss ${mib(memory.idle.rss)} → ${mib(memory.running.rss)} MiB, peak rss ${mib(memory.running.rssPeak)} MiB)`,
    );
  }
}

if (import.meta.main) {
  const options = loadBenchOptionsFromEnv();
  printLoadBench(options, await runLoadBench(options));
}
