/**
 * The load bench's client, in a process of its own (started by
 * `load-bench.ts`): runs turns over HTTP against the servers and, interleaved
 * round by round, the direct baseline — the provider requests of one recorded
 * turn sent straight to the fake provider through the same SDK and stream
 * parser the server's adapter uses. The rounds go to the servers in turn
 * (round r to server r mod n, warm-up rounds included), so a server process
 * that runs slow for its whole life, or a slow spell of the machine, weighs
 * on every server's share alike. Then holds CONCURRENCY turns running in the
 * first server to measure its memory per running turn. Its configuration is
 * one JSON value in LOAD_CLIENT_CONFIG; it prints one JSON line per measured
 * round and one for the memory.
 */
import { Database } from 'bun:sqlite';
import { readFileSync, rmSync } from 'node:fs';
import OpenAI from 'openai';
import { parseChatCompletionsStream } from '../../apps/api/src/services/providers/openai-compatible/parse-stream';
import { readSseFrames } from '../../apps/api/tests/support/sse-client';
import { cpuMsByThread, cpuMsOf } from '../process-cpu';
import { percentile } from './figures';
import { readServerMemory, type ServerMemory } from './server-memory';

export interface LoadCase {
  /** Turns (and direct sequences) running at once. */
  concurrency: number;
  /** Turns per round: `concurrency` at a time, so a multiple of it. */
  samplesPerRound: number;
  rounds: number;
  /** Unmeasured rounds run first (JIT, connection pools, SQLite pages). */
  warmupRounds: number;
  /** A batch's starts are spread evenly over this long (0: all at once). */
  spreadMs: number;
}

/** One server process under load, as the client reaches and reads it. */
export interface LoadTarget {
  serverUrl: string;
  apiKey: string;
  serverPid: number;
  /** Where the server's memory probe writes what it measured. */
  memoryFile: string;
  /** The server's SQLite file, read (read-only) for its own timing of each turn; none on PostgreSQL. */
  databaseFile?: string;
}

export interface LoadClientConfig {
  /** The servers, each its own process with its own database; rounds go to them in turn. */
  servers: LoadTarget[];
  model: string;
  /** The fake provider's Chat Completions base URL. */
  providerBaseUrl: string;
  /** A JSON file holding the request bodies of one turn, in order. */
  requestsFile: string;
  /** Model calls per turn. */
  steps: number;
  cases: LoadCase[];
  /** Running turns held for the memory figure (0: none). */
  memoryTurns: number;
  /** How long to leave the server idle before its memory is read (ended turns' events expire). */
  memorySettleMs: number;
  holdMarker: string;
  /** The fake provider's process, whose CPU time is read as the server's is. */
  fakePid: number;
}

export interface RoundResult {
  type: 'round';
  concurrency: number;
  round: number;
  /** Which server (its index in the configuration) ran the round's turns. */
  server: number;
  turn: { p50: number; p99: number };
  direct: { p50: number; p99: number };
  /** Every sample of the round, ms, for percentiles over all rounds together. */
  turnSamples: number[];
  directSamples: number[];
  /**
   * The same turns as the server timed them (`turns.started_at` to `ended_at`,
   * millisecond stamps): without the client's request and its reading of the
   * stream. Empty on PostgreSQL.
   */
  serverTimedSamples: number[];
  /** The server's CPU time (user + system) while the round's turns ran, per turn, ms. */
  serverCpuPerTurn: number;
  /** The same by thread name (`main` runs the JavaScript; the runtime's helpers have their own). */
  serverCpuPerTurnByThread: Record<string, number>;
  /**
   * The bench's own parts, which share the machine with the server: the fake
   * provider's and this client's CPU time per turn while the turns ran, and
   * per sequence while the direct sequences ran, ms.
   */
  benchCpu: {
    fakePerTurn: number;
    clientPerTurn: number;
    fakePerDirect: number;
    clientPerDirect: number;
  };
}

export interface MemoryResult {
  type: 'memory';
  turns: number;
  idle: ServerMemory;
  running: ServerMemory;
}

const config = JSON.parse(process.env.LOAD_CLIENT_CONFIG ?? 'null') as LoadClientConfig | null;
if (!config) {
  console.error('Set LOAD_CLIENT_CONFIG (see bench/load/load-bench.ts).');
  process.exit(2);
}
const { steps } = config;
const bodies = JSON.parse(readFileSync(config.requestsFile, 'utf8')) as Record<string, unknown>[];
const sdk = new OpenAI({ baseURL: config.providerBaseUrl, apiKey: 'bench-key', maxRetries: 0 });

/** A server as the rounds use it: the target, and its database opened for the server's own stamps. */
interface Server extends LoadTarget {
  index: number;
  database: Database | undefined;
}

const servers: Server[] = config.servers.map((target, index) => ({
  ...target,
  index,
  database: target.databaseFile ? new Database(target.databaseFile, { readonly: true }) : undefined,
}));

const call = (server: Server, path: string, method: string, body?: unknown) =>
  fetch(`${server.serverUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${server.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** Fresh chats, so every turn replays the same history as the recorded one (untimed). */
async function createChats(server: Server, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const response = await call(server, '/api/chats', 'POST', { model: config?.model });
    if (response.status !== 201)
      throw new Error(`POST /api/chats: ${response.status} ${await response.text()}`);
    ids.push(((await response.json()) as { id: string }).id);
  }
  return ids;
}

interface DoneFrame {
  type: 'done';
  status: string;
  iterations: number;
}

const DONE_FRAME = 'event: done\ndata: ';

/**
 * Reads a turn's stream to its `done` frame and returns that event. The
 * frames before it are only scanned, not parsed: this client shares the
 * machine's cores with the server, so what it spends per turn is taken from
 * the server under load. A JSON string cannot hold a raw newline, so the
 * marker can only be the frame's own `event:` line.
 */
async function readToDone(response: Response): Promise<DoneFrame | undefined> {
  if (!response.body) return undefined;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return undefined;
    pending += decoder.decode(value, { stream: true });
    const marker = pending.indexOf(DONE_FRAME);
    if (marker === -1) {
      // Only the last frame, not yet ended, can still hold the marker.
      const lastEnd = pending.lastIndexOf('\n\n');
      if (lastEnd !== -1) pending = pending.slice(lastEnd + 2);
      continue;
    }
    const end = pending.indexOf('\n\n', marker);
    if (end === -1) continue;
    await reader.cancel();
    return JSON.parse(pending.slice(marker + DONE_FRAME.length, end)) as DoneFrame;
  }
}

interface BenchCpu {
  fake: number;
  client: number;
}

/** The bench's own CPU time so far, ms: the fake provider's and this process's. */
function benchCpuMs(): BenchCpu {
  const { user, system } = process.cpuUsage();
  return { fake: cpuMsOf(`/proc/${config?.fakePid}/stat`), client: (user + system) / 1000 };
}

/** Adds the bench's CPU time since `before` to `total`. */
function addBenchCpuSince(total: BenchCpu, before: BenchCpu): void {
  const now = benchCpuMs();
  total.fake += now.fake - before.fake;
  total.client += now.client - before.client;
}

/** The server's CPU time so far, ms. */
function serverCpuMs(server: Server): number {
  return cpuMsOf(`/proc/${server.serverPid}/stat`);
}

/** How long the server's own stamps say each of these chats' turns took, ms. */
function serverTimedTurns(server: Server, chatIds: readonly string[]): number[] {
  if (!server.database) return [];
  const rows = server.database
    .prepare(
      `select started_at, ended_at from turns where chat_id in (${chatIds.map(() => '?').join(', ')})`,
    )
    .all(...chatIds) as { started_at: string; ended_at: string | null }[];
  return rows.flatMap((row) =>
    row.ended_at ? [Date.parse(row.ended_at) - Date.parse(row.started_at)] : [],
  );
}

async function timedTurn(server: Server, chatId: string, delayMs: number): Promise<number> {
  if (delayMs > 0) await Bun.sleep(delayMs);
  const started = performance.now();
  const response = await call(server, `/api/chats/${chatId}/turns`, 'POST', {
    content: 'Run the steps.',
  });
  if (response.status !== 200)
    throw new Error(`POST turns: ${response.status} ${await response.text()}`);
  const done = await readToDone(response);
  const elapsed = performance.now() - started;
  if (done?.type !== 'done' || done.status !== 'completed' || done.iterations !== steps)
    throw new Error(`a bench turn ended ${JSON.stringify(done)}, not completed in ${steps} calls`);
  return elapsed;
}

async function timedDirect(delayMs: number): Promise<number> {
  if (delayMs > 0) await Bun.sleep(delayMs);
  const started = performance.now();
  for (const body of bodies) {
    const stream = await sdk.chat.completions.create(
      body as unknown as OpenAI.ChatCompletionCreateParamsStreaming,
    );
    for await (const event of parseChatCompletionsStream(stream, 'OpenAI-compatible provider'))
      if (event.type === 'error') throw new Error(`direct request failed: ${event.message}`);
  }
  return performance.now() - started;
}

const print = (result: RoundResult | MemoryResult) => console.log(JSON.stringify(result));
const summary = (values: number[]) => ({
  p50: percentile(values, 50),
  p99: percentile(values, 99),
});

for (const loadCase of config.cases) {
  const { concurrency, samplesPerRound, spreadMs } = loadCase;
  // Unmeasured rounds (negative numbers) warm up both paths first, as many for each server.
  const warmups = loadCase.warmupRounds * servers.length;
  for (let round = -warmups; round < loadCase.rounds; round++) {
    const server = servers[(round + warmups) % servers.length] as Server;
    const chats = await createChats(server, samplesPerRound);
    const turns: number[] = [];
    const directs: number[] = [];
    let serverCpu = 0;
    const benchCpuInTurns: BenchCpu = { fake: 0, client: 0 };
    const benchCpuInDirects: BenchCpu = { fake: 0, client: 0 };
    const threadCpu = new Map<string, number>();
    // A batch of turns and a batch of direct sequences in turn; which goes first alternates,
    // so a drift in the machine's load favours neither.
    for (let start = 0, batch = 0; start < samplesPerRound; start += concurrency, batch++) {
      const size = Math.min(concurrency, samplesPerRound - start);
      const delay = (index: number) => (spreadMs * index) / size;
      const runTurns = async () => {
        const cpuBefore = serverCpuMs(server);
        const threadsBefore = cpuMsByThread(server.serverPid);
        const benchBefore = benchCpuMs();
        turns.push(
          ...(await Promise.all(
            chats
              .slice(start, start + size)
              .map((chatId, index) => timedTurn(server, chatId, delay(index))),
          )),
        );
        serverCpu += serverCpuMs(server) - cpuBefore;
        addBenchCpuSince(benchCpuInTurns, benchBefore);
        for (const [name, cpu] of cpuMsByThread(server.serverPid))
          threadCpu.set(name, (threadCpu.get(name) ?? 0) + cpu - (threadsBefore.get(name) ?? 0));
      };
      const runDirects = async () => {
        const benchBefore = benchCpuMs();
        directs.push(
          ...(await Promise.all(
            Array.from({ length: size }, (_, index) => timedDirect(delay(index))),
          )),
        );
        addBenchCpuSince(benchCpuInDirects, benchBefore);
      };
      if ((round + batch) % 2 === 0) {
        await runTurns();
        await runDirects();
      } else {
        await runDirects();
        await runTurns();
      }
    }
    if (round >= 0)
      print({
        type: 'round',
        concurrency,
        round,
        server: server.index,
        turn: summary(turns),
        direct: summary(directs),
        turnSamples: turns,
        directSamples: directs,
        serverTimedSamples: serverTimedTurns(server, chats),
        serverCpuPerTurn: serverCpu / turns.length,
        serverCpuPerTurnByThread: Object.fromEntries(
          [...threadCpu].map(([name, cpu]) => [name, cpu / turns.length]),
        ),
        benchCpu: {
          fakePerTurn: benchCpuInTurns.fake / turns.length,
          clientPerTurn: benchCpuInTurns.client / turns.length,
          fakePerDirect: benchCpuInDirects.fake / directs.length,
          clientPerDirect: benchCpuInDirects.client / directs.length,
        },
      });
  }
}

if (config.memoryTurns > 0) {
  const server = servers[0] as Server;
  const chats = await createChats(server, config.memoryTurns);
  // The events of the turns that ended in the rounds stay in the server's memory for a while;
  // once they are gone, nothing but the held turns changes between the two readings.
  await Bun.sleep(config.memorySettleMs);
  const idle = await readServerMemory(server.serverPid, server.memoryFile);
  // Every turn runs its tool steps, then its final answer starts and hangs: all are running.
  const streams = await Promise.all(
    chats.map(async (chatId) => {
      const response = await call(server, `/api/chats/${chatId}/turns`, 'POST', {
        content: `Run the steps, then ${config.holdMarker}.`,
      });
      if (response.status !== 200)
        throw new Error(`POST turns: ${response.status} ${await response.text()}`);
      const frames = readSseFrames(response);
      for (;;) {
        const next = await frames.next();
        if (next.done) throw new Error('a held turn ended before its answer started');
        if ((JSON.parse(next.value.data) as { type: string }).type === 'text_delta') break;
      }
      return frames;
    }),
  );
  const running = await readServerMemory(server.serverPid, server.memoryFile);
  await Promise.all(
    chats.map((chatId) => call(server, `/api/chats/${chatId}/turns/cancel`, 'POST')),
  );
  await Promise.all(
    streams.map(async (frames) => {
      for await (const frame of frames)
        if ((JSON.parse(frame.data) as { type: string }).type === 'done') break;
    }),
  );
  print({ type: 'memory', turns: config.memoryTurns, idle, running });
}
for (const server of servers) {
  server.database?.close();
  rmSync(server.memoryFile, { force: true });
}
