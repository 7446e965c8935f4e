/**
 * MCP overhead (docs/mcp.md#performance), three measurements in one run:
 *
 * 1. Added time per call: an MCP tool call through the turn's path
 *    (`createTurnToolset` → the MCP tool source → the shared connection,
 *    inside `runWithToolBudget`) against the same call on a bare SDK client
 *    to the same server, both warm, rounds interleaved; over stdio and
 *    Streamable HTTP. Target: ≤ 1 ms added per call.
 * 2. Connections: the inspector then a turn open one process; a warm turn opens none.
 * 3. Turn start with 5 enabled servers, one of them hanging on initialize:
 *    the turn's first model request leaves within the connect budget + 50 ms.
 *
 *   npm run bench:mcp            (CALLS=300 ROUNDS=5 BUDGET_MS=1000)
 */
import type { Chat } from '@mango/shared';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { listChatTools } from '../apps/api/src/services/chat/chat-tools';
import { createTurnToolset } from '../apps/api/src/services/chat/turn-toolset';
import { createProviderRegistry } from '../apps/api/src/services/providers/provider-registry';
import { createToolCatalog } from '../apps/api/src/services/tools';
import { withUserSources } from '../apps/api/src/services/tools/sources/tool-catalog';
import { startFakeProviderServer } from '../apps/api/tests/support/fake-provider';
import { createMarkerDir, SCENARIO_STDIO_ENTRY } from '../apps/api/tests/support/mcp/mcp-fixtures';
import { startScenarioHttpServer } from '../apps/api/tests/support/mcp/scenario-http';
import { readTurnEvents } from '../apps/api/tests/support/sse-client';
import { startTestApp } from '../apps/api/tests/support/test-app';
import { createTestDatabase } from '../apps/api/tests/support/test-databases';
import { createTestCallContext } from '../apps/api/tests/support/tool-context';
import type { McpServer } from '../apps/shared/src';
import { numberFromEnv } from './env-options';

const CALLS = numberFromEnv('CALLS', 300);
const ROUNDS = numberFromEnv('ROUNDS', 5);
const BUDGET_MS = numberFromEnv('BUDGET_MS', 1000);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const fake = await startFakeProviderServer();
const database = await createTestDatabase('sqlite');
const app = startTestApp(database.database, {
  providers: createProviderRegistry({
    openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
  }),
  mcp: { allowPrivateUrls: true, connectBudgetMs: BUDGET_MS },
});
const user = await app.signUp();
const marks = createMarkerDir();
const http = startScenarioHttpServer();

async function addServer(body: Record<string, unknown>): Promise<McpServer> {
  const response = await app.fetch('/api/mcp/servers', { ...json('POST', body), user });
  if (response.status !== 201) throw new Error(`adding a server failed: ${await response.text()}`);
  return (await response.json()) as McpServer;
}
const newChat = async () =>
  (await (
    await app.fetch('/api/chats', { ...json('POST', { model: 'openai:gpt-5' }), user })
  ).json()) as Chat;

await addServer({
  name: 'Local',
  type: 'stdio',
  command: process.execPath,
  args: [SCENARIO_STDIO_ENTRY],
  env: { MCP_MARKER_DIR: marks.path },
});
await addServer({ name: 'Remote', type: 'http', url: http.url });

// 2. Connections: the inspector, then a turn, then a warm turn.
const chat = await newChat();
await app.fetch(`/api/chats/${chat.id}/capabilities`, { user });
const afterInspector = { processes: marks.starts().length, sessions: http.sessionsStarted };
fake.enqueue(
  'openai',
  { content: [{ type: 'tool_call', name: 'mcp__local__echo', arguments: { text: 'a' } }] },
  { content: [{ type: 'text', text: 'ok' }] },
);
await readTurnEvents(
  await app.fetch(`/api/chats/${chat.id}/turns`, { ...json('POST', { content: 'go' }), user }),
);
const afterTurn = { processes: marks.starts().length, sessions: http.sessionsStarted };
fake.enqueue('openai', { content: [{ type: 'text', text: 'ok' }] });
await readTurnEvents(
  await app.fetch(`/api/chats/${chat.id}/turns`, { ...json('POST', { content: 'again' }), user }),
);
const afterWarmTurn = { processes: marks.starts().length, sessions: http.sessionsStarted };

// 1. Added time per call.
async function bareClient(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' }, { capabilities: {} });
  await client.connect(transport);
  return client;
}
const bare = {
  stdio: await bareClient(
    new StdioClientTransport({
      command: process.execPath,
      args: [SCENARIO_STDIO_ENTRY],
      stderr: 'ignore',
    }),
  ),
  http: await bareClient(new StreamableHTTPClientTransport(new URL(http.url))),
};
// The turn's own path: the listing a turn makes (the user's MCP servers), and its toolset.
const chatRecord = {
  id: chat.id,
  userId: user.id,
  title: chat.title,
  mode: 'chat' as const,
  workingDirectory: null,
  restrictToWorkingDirectory: true,
  model: chat.model,
  createdAt: chat.createdAt,
  updatedAt: chat.updatedAt,
};
const { listing: chatListing } = await listChatTools(
  {
    catalog: withUserSources(createToolCatalog([]), app.services.mcp.userSources),
    loadSavedToolSettings: (userId) => app.services.toolSettings.loadSavedToolSettings(userId),
    createFreshnessLedger: () => createTestCallContext().freshness,
  },
  user.id,
  chatRecord,
);
const toolset = createTurnToolset(
  chatListing,
  createTestCallContext({ userId: user.id, chatId: chat.id }),
);

const signal = new AbortController().signal;
async function timeCalls(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < CALLS; index++) await call();
  return ((performance.now() - started) * 1000) / CALLS;
}
const samples = {
  stdio: { ours: [] as number[], bare: [] as number[] },
  http: { ours: [] as number[], bare: [] as number[] },
};
for (const kind of ['stdio', 'http'] as const) {
  const name = kind === 'stdio' ? 'mcp__local__echo' : 'mcp__remote__echo';
  const ours = () =>
    toolset.execute({ toolCallId: 'call_bench', name, args: { text: 'hi' } }, signal);
  const direct = () => bare[kind].callTool({ name: 'echo', arguments: { text: 'hi' } });
  await timeCalls(ours);
  await timeCalls(direct);
  for (let round = 0; round < ROUNDS; round++) {
    samples[kind].ours.push(await timeCalls(ours));
    samples[kind].bare.push(await timeCalls(direct));
  }
}

// 3. Turn start with 5 enabled servers, one hanging.
for (let index = 0; index < 3; index++)
  await addServer({ name: `Extra ${index}`, type: 'http', url: http.url });
await addServer({
  name: 'Hangs',
  type: 'stdio',
  command: process.execPath,
  args: [SCENARIO_STDIO_ENTRY],
  env: { MCP_HANG_ON_INITIALIZE: '1' },
});
const startDelays: number[] = [];
for (let round = 0; round < 3; round++) {
  const fresh = await newChat();
  let firstRequestAt = 0;
  fake.respondWith('openai', () => {
    if (!firstRequestAt) firstRequestAt = performance.now();
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  const started = performance.now();
  await readTurnEvents(
    await app.fetch(`/api/chats/${fresh.id}/turns`, { ...json('POST', { content: 'go' }), user }),
  );
  startDelays.push(firstRequestAt - started);
}

const [load] = (
  await Bun.file('/proc/loadavg')
    .text()
    .catch(() => '? ? ?')
).split(' ');
console.log(`MCP overhead, ${CALLS} calls × ${ROUNDS} rounds per series (load average ${load})`);
console.log('transport   ours µs/call   bare SDK µs/call   added µs/call');
for (const kind of ['stdio', 'http'] as const) {
  const ours = median(samples[kind].ours);
  const direct = median(samples[kind].bare);
  const added = ours - direct;
  console.log(
    `${kind.padEnd(10)}  ${ours.toFixed(1).padStart(12)}   ${direct.toFixed(1).padStart(16)}   ${added.toFixed(1).padStart(13)} ${added <= 1000 ? '(≤ 1 ms)' : '(OVER 1 ms)'}`,
  );
}
console.log(
  `connections: inspector → ${afterInspector.processes} process, ${afterInspector.sessions} http session; then a turn → ${afterTurn.processes} / ${afterTurn.sessions}; then a warm turn → ${afterWarmTurn.processes} / ${afterWarmTurn.sessions} (new in the warm turn: ${afterWarmTurn.processes - afterTurn.processes + afterWarmTurn.sessions - afterTurn.sessions})`,
);
console.log(
  `turn start with 5 servers, one hanging (budget ${BUDGET_MS} ms): first model request after ${startDelays.map((delay) => delay.toFixed(0)).join(', ')} ms ${Math.max(...startDelays) <= BUDGET_MS + 50 ? '(within budget + 50 ms)' : '(OVER budget + 50 ms)'}`,
);

await bare.stdio.close();
await bare.http.close();
await app.stop();
await http.stop();
await database.dispose();
await fake.close();
marks.remove();
