/**
 * Run as a process of its own by sdk-loading.test.ts, so that its module
 * registry holds only what this script loads: makes one adapter, uses it
 * once (against a port where nothing listens), and prints whether the
 * adapter's SDK was loaded before it was made, once made, and once used.
 */
import { openDatabase } from '../../src/db/database';
import { McpConnection } from '../../src/services/mcp/mcp-connection';
import { createAnthropicProvider } from '../../src/services/providers/anthropic/anthropic-provider';
import { createGeminiProvider } from '../../src/services/providers/gemini/gemini-provider';
import { createGeminiImageModel } from '../../src/services/providers/gemini-images/gemini-image-model';
import { createOpenAICompatibleProvider } from '../../src/services/providers/openai-compatible/openai-compatible-provider';
import { createOpenAIImageModel } from '../../src/services/providers/openai-images/openai-image-model';
import { createOpenAIResponsesProvider } from '../../src/services/providers/openai-responses/openai-responses-provider';
import { loadedPackages } from './loaded-packages';
import { serverRecord } from './mcp/mcp-fixtures';

const NOWHERE = 'http://127.0.0.1:1';
const connection = { baseURL: NOWHERE, apiKey: 'test-key', maxRetries: 0, timeoutMs: 5_000 };

/** What each case makes, and how it is used once (failing is fine: the port refuses). */
const cases: Record<
  string,
  { sdk: string; make: () => unknown; use: (made: never) => Promise<unknown> }
> = {
  anthropic: {
    sdk: '@anthropic-ai/sdk',
    make: () => createAnthropicProvider(connection),
    use: (provider: ReturnType<typeof createAnthropicProvider>) =>
      provider.listModels?.() ?? Promise.resolve(),
  },
  gemini: {
    sdk: '@google/genai',
    make: () => createGeminiProvider(connection),
    use: (provider: ReturnType<typeof createGeminiProvider>) =>
      provider.listModels?.() ?? Promise.resolve(),
  },
  'openai-compatible': {
    sdk: 'openai',
    make: () => createOpenAICompatibleProvider({ ...connection, baseURL: `${NOWHERE}/v1` }),
    use: (provider: ReturnType<typeof createOpenAICompatibleProvider>) =>
      provider.listModels?.() ?? Promise.resolve(),
  },
  openai: {
    sdk: 'openai',
    make: () => createOpenAIResponsesProvider({ ...connection, baseURL: `${NOWHERE}/v1` }),
    use: (provider: ReturnType<typeof createOpenAIResponsesProvider>) =>
      provider.listModels?.() ?? Promise.resolve(),
  },
  'openai-images': {
    sdk: 'openai',
    make: () =>
      createOpenAIImageModel({ ...connection, provider: 'openai', modelId: 'gpt-image-1' }),
    use: (model: ReturnType<typeof createOpenAIImageModel>) =>
      model.generate({
        prompt: 'a mango',
        count: 1,
        quality: 'auto',
        signal: AbortSignal.timeout(5_000),
      }),
  },
  'gemini-images': {
    sdk: '@google/genai',
    make: () => createGeminiImageModel({ ...connection, modelId: 'gemini-2.5-flash-image' }),
    use: (model: ReturnType<typeof createGeminiImageModel>) =>
      model.generate({
        prompt: 'a mango',
        count: 1,
        quality: 'auto',
        signal: AbortSignal.timeout(5_000),
      }),
  },
  mcp: {
    sdk: '@modelcontextprotocol/sdk',
    make: () =>
      new McpConnection({
        record: serverRecord({ command: 'mango-no-such-command', args: [] }),
        fetch,
        connectTimeoutMs: 5_000,
      }),
    use: (made: McpConnection) => made.ready(),
  },
  postgres: {
    sdk: 'pg',
    make: () => undefined,
    use: async () => {
      const database = openDatabase({
        kind: 'postgres',
        url: 'postgres://nobody@127.0.0.1:1/none',
      });
      await database.close();
    },
  },
};

const name = process.argv[2] ?? '';
const probe = cases[name];
if (!probe) {
  console.error(`unknown case "${name}"; one of ${Object.keys(cases).join(', ')}`);
  process.exit(2);
}
const loaded = () => loadedPackages().has(probe.sdk);
const before = loaded();
const made = probe.make();
const afterMaking = loaded();
const outcome = await probe.use(made as never).then(
  () => 'answered',
  (error: unknown) => `failed: ${error instanceof Error ? error.message : String(error)}`,
);
console.log(JSON.stringify({ before, afterMaking, afterUse: loaded(), outcome }));
