/**
 * The provider SDKs, the MCP SDK and node-postgres are loaded when they are
 * first used, not when the server starts (docs/chat-turns.md#what-a-full-collection-costs):
 * each case runs in a process of its own, whose module registry holds only
 * what it loaded.
 */
import { expect, test } from 'bun:test';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  createProviderRegistry,
  prepareProviders,
} from '../../src/services/providers/provider-registry';
import type { LanguageModelProvider, ProviderId } from '../../src/services/providers/spec';
import { startServerProcess } from '../support/server-process';
import { createTempTree } from '../support/temp-tree';
import { waitUntil } from '../support/wait-until';

const PROBE = join(import.meta.dir, '../support/sdk-loading-probe.ts');
const LOADED_PACKAGES = join(import.meta.dir, '../support/loaded-packages.ts');
const SERVER_ENTRY = join(import.meta.dir, '../../src/index.ts');

/** A provider that is never called. */
function stubProvider(id: ProviderId): LanguageModelProvider {
  return {
    id,
    toolRequestFields: () => ({}),
    streamTurn: () => {
      throw new Error('not called');
    },
  };
}

async function probe(name: string) {
  const child = Bun.spawn([process.execPath, PROBE, name], { stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`the probe of ${name} exited with ${code}: ${stderr}`);
  return JSON.parse(stdout) as {
    before: boolean;
    afterMaking: boolean;
    afterUse: boolean;
    outcome: string;
  };
}

for (const [name, refusal] of [
  ['anthropic', /Connection error/],
  ['openai', /Connection error/],
  ['openai-compatible', /Connection error/],
  ['gemini', /ECONNREFUSED|Unable to connect/],
  ['openai-images', /could not connect/],
  ['gemini-images', /could not connect/],
  ['mcp', /"mango-no-such-command" was not found/],
] as const) {
  test(`${name}: the SDK is loaded by the first call, not by making the adapter, and the call fails as before when nothing answers`, async () => {
    const seen = await probe(name);
    expect(seen).toMatchObject({ before: false, afterMaking: false, afterUse: true });
    // The SDK's own error, classified as it was when the SDK was loaded at start-up.
    expect(seen.outcome).toMatch(refusal);
  }, 30_000);
}

test('postgres: node-postgres is loaded when a PostgreSQL database is opened', async () => {
  expect(await probe('postgres')).toMatchObject({
    before: false,
    afterMaking: false,
    afterUse: true,
  });
}, 30_000);

test("a server on SQLite with an OpenAI-compatible provider loads that provider's SDK once it is up, and no other SDK and not node-postgres", async () => {
  const tree = createTempTree('mango-sdk-loading');
  const file = join(tree.root, 'loaded-packages.json');
  try {
    const server = await startServerProcess(
      {
        MANGO_DATA_DIR: tree.root,
        OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:1/v1',
        LOADED_PACKAGES_FILE: file,
      },
      { command: [process.execPath, '--preload', LOADED_PACKAGES, SERVER_ENTRY] },
    );
    try {
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
      // The offered provider's SDK is loaded after the server answers (prepareProviders).
      let packages: string[] = [];
      const loaded = await waitUntil(async () => {
        rmSync(file, { force: true });
        server.process.kill('SIGUSR2');
        if (!(await waitUntil(() => existsSync(file), 5_000))) return false;
        packages = JSON.parse(readFileSync(file, 'utf8')) as string[];
        return packages.includes('openai');
      }, 10_000);
      expect(loaded).toBe(true);
      // What the server needs to answer at all is there too (the probe sees packages)...
      expect(packages).toEqual(expect.arrayContaining(['kysely', 'elysia', 'better-auth']));
      // ...and no other SDK is, until a turn, a model list, an image or an MCP server needs it.
      for (const sdk of ['@anthropic-ai/sdk', '@google/genai', '@modelcontextprotocol/sdk', 'pg'])
        expect(packages).not.toContain(sdk);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  } finally {
    tree.remove();
  }
}, 60_000);

test("prepareProviders loads every offered provider's SDK and names those that could not be loaded", async () => {
  const loads: string[] = [];
  const registry = createProviderRegistry(
    { anthropic: {}, gemini: {} },
    {
      anthropic: () => ({
        ...stubProvider('anthropic'),
        prepare: async () => {
          loads.push('anthropic');
        },
      }),
      gemini: () => ({
        ...stubProvider('gemini'),
        prepare: async () => {
          loads.push('gemini');
          throw new Error('cannot load');
        },
      }),
    },
  );
  expect(await prepareProviders(registry)).toEqual(['gemini']);
  expect(loads.sort()).toEqual(['anthropic', 'gemini']);
});
